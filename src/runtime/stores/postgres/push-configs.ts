/** The PostgreSQL push config store: a task's push notification configs, by config id. */
import { pushConfigId, storableJson } from "../task-json.js";
import type { PushConfigStore } from "../contract.js";
import type { JsonObject } from "../../json.js";
import { PostgresPart } from "./sql.js";

export class PostgresPushConfigStore extends PostgresPart implements PushConfigStore {
  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = pushConfigId(taskId, config);
    const { rows } = await this.db.query<{ config: JsonObject }>(
      `INSERT INTO ${this.p}push_configs (task_id, config_id, config) VALUES ($1, $2, $3::json)
       ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config RETURNING config`,
      [taskId, id, storableJson(config, `push config "${id}"`)],
    );
    return rows[0]?.config ?? { ...config };
  }

  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const { rows } =
      configId === undefined
        ? await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 ORDER BY position DESC LIMIT 1`, [taskId])
        : await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 AND config_id = $2`, [taskId, configId]);
    return rows[0]?.config;
  }

  async list(taskId: string): Promise<JsonObject[]> {
    const { rows } = await this.db.query<{ config: JsonObject }>(`SELECT config FROM ${this.p}push_configs WHERE task_id = $1 ORDER BY position`, [taskId]);
    return rows.map((r) => r.config);
  }

  async delete(taskId: string, configId: string): Promise<boolean> {
    const { rowCount } = await this.db.query(`DELETE FROM ${this.p}push_configs WHERE task_id = $1 AND config_id = $2`, [taskId, configId]);
    return (rowCount ?? 0) > 0;
  }
}
