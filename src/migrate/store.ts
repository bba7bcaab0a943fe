import { CodegenError } from "../errors.js";
import { VersionConverter, type Direction, type VersionMapping } from "../runtime/compat/converter.js";
import type { JsonObject } from "../runtime/json.js";
import type { A2AStore } from "../runtime/stores/contract.js";

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/** What a store conversion did. */
export interface StoreConversion {
  /** Tasks rewritten in the new version's shape, and tasks already in it. */
  tasks: number;
  unchanged: number;
  /** Push notification configs rewritten. */
  configs: number;
}

/**
 * Rewrites the tasks and push configs a durable store holds from one version's shapes to the other's, by
 * the version mapping's conversion (the one the compat runtime serves with: src/runtime/compat.ts), each
 * task with a compare-and-set on the version it was read at. A task already in the new shape is left as
 * it is, so a second run changes nothing. The event logs of running tasks and the pending push deliveries
 * are not rewritten: let the running tasks finish before switching.
 */
export async function convertStore(store: A2AStore, mapping: VersionMapping, direction: Direction): Promise<StoreConversion> {
  const converter = new VersionConverter(mapping);
  const result: StoreConversion = { tasks: 0, unchanged: 0, configs: 0 };
  const configPlan = pushConfigPlan(mapping, direction);
  for (const listed of await store.tasks.list()) {
    const id = String(listed["id"]);
    for (let attempt = 0; ; attempt++) {
      const current = await store.tasks.load(id);
      if (!current) break;
      if (!inSourceShape(current.task, mapping, direction)) {
        result.unchanged++;
        break;
      }
      const task = converter.object("Task", direction, current.task) as JsonObject;
      try {
        await store.tasks.commit({ task, expectedVersion: current.version });
        result.tasks++;
        break;
      } catch (error) {
        // Written meanwhile (an agent still running): read it again, a few times.
        if (attempt >= 3 || (error as { name?: string }).name !== "TaskVersionConflictError") {
          throw new CodegenError(`cannot rewrite task ${id} of the store in A2A ${direction === "toPrimary" ? mapping.primary : mapping.compat}'s shape: ${String(error)}`, { kind: "io", cause: error });
        }
      }
    }
    for (const config of await store.pushConfigs.list(id)) {
      if (!inSourceConfigShape(config, direction)) continue;
      const converted = converter.convert({ plan: configPlan }, direction, config) as JsonObject;
      if (direction === "toPrimary" && converted["taskId"] === undefined) converted["taskId"] = id;
      await store.pushConfigs.set(id, converted);
      result.configs++;
    }
  }
  return result;
}

/** A task of the source version: it has the constant tags the target does not (0.3 `kind: "task"`), or the source's spelling of its state. */
function inSourceShape(task: JsonObject, mapping: VersionMapping, direction: Direction): boolean {
  const plan = Object.entries(mapping.plans[direction]).find(([id]) => id === "Task" || id.startsWith("Task~"))?.[1];
  if (plan?.kind === "object" && plan.ignore.some((tag) => task[tag] !== undefined)) return true;
  const state = isObject(task["status"]) ? task["status"]["state"] : undefined;
  const states = Object.entries(mapping.plans[direction]).find(([id]) => id === "TaskState" || id.startsWith("TaskState~"))?.[1];
  return typeof state === "string" && states?.kind === "enum" && state in states.values && states.values[state] !== state;
}

/** A push config as the source version's runtime keeps it: 0.3's bare PushNotificationConfig (no `taskId`), 1.0's flat TaskPushNotificationConfig. */
function inSourceConfigShape(config: JsonObject, direction: Direction): boolean {
  return direction === "toPrimary" ? config["taskId"] === undefined : !isObject(config["pushNotificationConfig"]);
}

/** The plan of a stored push config: 0.3's PushNotificationConfig ↔ 1.0's TaskPushNotificationConfig. */
function pushConfigPlan(mapping: VersionMapping, direction: Direction): string {
  const id = Object.keys(mapping.plans[direction]).find((x) => x.startsWith("PushNotificationConfig~"));
  if (id === undefined) throw new CodegenError(`the mapping ${mapping.compat} ↔ ${mapping.primary} has no plan for stored push configs`);
  return id;
}

/** The store a URL names (as the generated `connectStore` reads `A2A_STORE_URL`), on the engines' default table and key prefixes. */
export async function openStore(url: string): Promise<A2AStore> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "";
  if (scheme === "postgres" || scheme === "postgresql") return (await import("../runtime/stores/postgres.js")).PostgresStore.connect({ connectionString: url });
  if (scheme === "mysql" || scheme === "mariadb") return (await import("../runtime/stores/mysql.js")).MysqlStore.connect({ url });
  if (scheme === "redis" || scheme === "rediss") return (await import("../runtime/stores/redis.js")).RedisStore.connect({ url });
  // The URL itself is not echoed: it may hold a password.
  throw new CodegenError(`--store: unsupported scheme "${scheme}"; a store URL is postgres://…, mysql://… or redis://…`, { kind: "usage" });
}
