/** The Redis push config store: a task's push notification configs in one hash, by config id. */
import { pushConfigId, storableJson } from "../task-json.js";
import type { PushConfigStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { Connection } from "./connection.js";

export class RedisPushConfigStore implements PushConfigStore {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const json = storableJson(config, `push config "${id}"`);
    await this.db.script("pushSet", [taskId, id, json]);
    return JSON.parse(json) as JsonObject;
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    if (configId !== undefined) {
      const json = await this.db.command<string | null>(["HGET", `${this.db.prefix}push:${taskId}`, configId], "push get");
      return json === null ? undefined : (JSON.parse(json) as JsonObject);
    }
    return (await this.list(taskId)).at(-1);
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const reply = await this.db.script<string[]>("pushList", [taskId]);
    const entries: Array<{ position: number; config: JsonObject }> = [];
    for (let i = 0; i + 1 < reply.length; i += 2) entries.push({ position: Number(reply[i]), config: JSON.parse(String(reply[i + 1])) as JsonObject });
    return entries.sort((a, b) => a.position - b.position).map((e) => e.config);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    return (await this.db.script<number>("pushDelete", [taskId, configId])) > 0;
  }
}
