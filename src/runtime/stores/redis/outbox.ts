/** The Redis push outbox: push notifications to deliver, claimed by one instance at a time, retried later. */
import { storableJson } from "../task-json.js";
import type { OutboxEntry, OutboxMessage, PushOutbox } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { Connection } from "./connection.js";

export class RedisPushOutbox implements PushOutbox {
  private readonly db: Connection;

  constructor(db: Connection) {
    this.db = db;
  }

  async enqueue(messages: readonly OutboxMessage[]): Promise<string[]> {
    if (messages.length === 0) return [];
    const args: Array<string | number> = [messages.length];
    for (const m of messages) args.push(m.taskId, storableJson(m.target, "a push target"), storableJson(m.payload, "a push notification"));
    return this.db.script<string[]>("enqueue", args);
  }

  async claim(owner: string, options: { leaseMs: number; limit?: number }): Promise<OutboxEntry[]> {
    const reply = await this.db.script<Array<string | number>>("claim", [owner, Math.max(1, Math.floor(options.leaseMs)), options.limit ?? 10]);
    const entries: OutboxEntry[] = [];
    for (let i = 0; i + 4 < reply.length; i += 5) {
      entries.push({
        id: String(reply[i]),
        taskId: String(reply[i + 1]),
        target: JSON.parse(String(reply[i + 2])) as JsonObject,
        payload: JSON.parse(String(reply[i + 3])) as JsonObject,
        attempts: Number(reply[i + 4]),
      });
    }
    return entries.sort((a, b) => Number(a.id) - Number(b.id));
  }

  async ack(id: string, owner: string): Promise<boolean> {
    return (await this.db.script<number>("ack", [id, owner])) === 1;
  }

  async retry(id: string, owner: string, delayMs: number): Promise<boolean> {
    return (await this.db.script<number>("retry", [id, owner, Math.max(0, Math.floor(delayMs))])) === 1;
  }

  async size(): Promise<number> {
    return this.db.command<number>(["ZCARD", `${this.db.prefix}outbox`], "outbox size");
  }
}
