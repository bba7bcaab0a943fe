/** The MySQL push config store: a task's push notification configs, by config id, in the order first set. */
import { pushConfigId, storableJson } from "../task-json.js";
import type { PushConfigStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { key, MysqlPart } from "./sql.js";

export class MysqlPushConfigStore extends MysqlPart implements PushConfigStore {
  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const json = storableJson(config, `push config "${id}"`);
    await this.sql.query(
      "set push config",
      `INSERT INTO ${this.p}push_configs (task_id, config_id, config) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE config = VALUES(config)`,
      [key(taskId), key(id), json],
    );
    return JSON.parse(json) as JsonObject;
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const [row] =
      configId === undefined
        ? await this.sql.rows<{ config: string }>("get push config", `SELECT config FROM ${this.p}push_configs WHERE task_id = ? ORDER BY position DESC LIMIT 1`, [key(taskId)])
        : await this.sql.rows<{ config: string }>("get push config", `SELECT config FROM ${this.p}push_configs WHERE task_id = ? AND config_id = ?`, [key(taskId), key(configId)]);
    return row && (JSON.parse(row.config) as JsonObject);
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const rows = await this.sql.rows<{ config: string }>("list push configs", `SELECT config FROM ${this.p}push_configs WHERE task_id = ? ORDER BY position`, [key(taskId)]);
    return rows.map((r) => JSON.parse(r.config) as JsonObject);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    return (await this.sql.changed("delete push config", `DELETE FROM ${this.p}push_configs WHERE task_id = ? AND config_id = ?`, [key(taskId), key(configId)])) > 0;
  }
}
