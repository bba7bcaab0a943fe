/**
 * The builders and readers that let one runtime speak every version, decided by the profile's shapes
 * (profile.ts): messages (MessageShapes, message-shapes.ts, which the client shares), statuses, tasks and
 * events built the version's way, the send params read the version's way, results wrapped and unwrapped,
 * push configs and history in the version's fields.
 */
import { jsonTextOf, withJsonText } from "./event-ids.js";
import { isObject, type JsonObject } from "./json.js";
import { MessageShapes } from "./message-shapes.js";
import { canonicalValue, isoNow, PUSH_CONFIG_VERSION_FIELD, valueAt, type MethodRole } from "./profile.js";
import { newId } from "./random-ids.js";

export { MessageShapes } from "./message-shapes.js";

export interface SendRequestParts {
  message: JsonObject;
  /** The task the message continues: the message's taskId, or (0.1.0) the params' client-chosen id. */
  taskId: string | undefined;
  /** Whether the client names the task id of a new task (0.1.0 `tasks/send` `id`). */
  clientChosenTaskId: boolean;
  /**
   * An `id` in the send params of a version whose text says task ids are server-generated (1.0.1 §3.4.2):
   * a client trying to choose a new task's id. The value as sent; undefined when absent. (0.2–0.3 send
   * params have no `id` and their texts are silent: an `id` there is ignored, never used as the task id.)
   */
  undeclaredId: unknown;
  /** Where the request names the context: "/params/message/contextId" (0.2+) or "/params/sessionId" (0.1.0). */
  contextPointer: string;
  contextId: string | undefined;
  historyLength: number | undefined;
  blocking: boolean;
  acceptedOutputModes: string[] | undefined;
  pushConfig: JsonObject | undefined;
  metadata: JsonObject | undefined;
}

/** ProtocolShapes.artifactEvent's layout for a version: the event's members and where the chunk flags go. */
interface ArtifactEventPlan {
  readonly tags: Readonly<JsonObject>;
  readonly taskId: string;
  readonly context: string | undefined;
  readonly artifactId: boolean;
  /** The chunk flags are the event's (0.3, 1.0), else the artifact's (0.1, 0.2). */
  readonly flagsOnEvent: boolean;
  readonly append: boolean;
  readonly lastChunk: boolean;
  readonly index: boolean;
}

export class ProtocolShapes extends MessageShapes {
  /** Whether the version has a task state (0.1.0 has no "rejected" nor "auth-required"). */
  hasState(state: string): boolean {
    return this.profile.taskStates.some((s) => canonicalValue(s) === state);
  }

  private readonly stateValues = new Map<string, string>();

  /**
   * The version's spelling of a task state ("completed" → "TASK_STATE_COMPLETED" in 1.0), from either
   * spelling; a string that is no settable state of the version is a TypeError naming the states.
   */
  stateValue(state: string): string {
    // Read twice per status update: the answers for the version's states are kept (anything else is looked up, or refused, each time).
    const known = this.stateValues.get(state);
    if (known !== undefined) return known;
    const value = this.profile.taskStates.find((v) => (v === state || canonicalValue(v) === state) && canonicalValue(v) !== "unspecified");
    if (value !== undefined && this.stateValues.size < 64) this.stateValues.set(state, value);
    if (value === undefined) {
      const settable = this.profile.taskStates.filter((v) => canonicalValue(v) !== "unspecified");
      const spellings = settable.map((v) => (canonicalValue(v) === v ? `"${v}"` : `"${canonicalValue(v)}" (${v})`));
      const near = closestState(state, settable);
      const hint = near === undefined ? "" : `; did you mean "${near}"?`;
      throw new TypeError(`${JSON.stringify(state)} is not a task state of A2A ${this.profile.specVersion}: one of ${spellings.join(", ")}${hint}`);
    }
    return value;
  }

  /** A result of a method, wrapped where the version wraps results (1.0: `{ "task": … }`). */
  wrap(role: MethodRole | undefined, value: unknown): unknown {
    const wrappers = role ? this.profile.resultWrappers[role] : undefined;
    if (!wrappers || !isObject(value)) return value;
    const type = { task: "Task", message: "Message", "status-update": "TaskStatusUpdateEvent", "artifact-update": "TaskArtifactUpdateEvent", unknown: "" }[this.classify(value)];
    const property = wrappers[type];
    if (!property) return value;
    // The wrapped value's JSON text, where it has one, makes the wrapper's (not serialized again).
    const text = jsonTextOf(value);
    return withJsonText({ [property]: value }, text === undefined ? undefined : `{${JSON.stringify(property)}:${text}}`);
  }

  // --- building objects (messages and parts: MessageShapes) ------------------------------------

  /**
   * Where an agent card says its JSON-RPC endpoint is: `url` (0.x), or the JSONRPC entry of
   * `supportedInterfaces` (1.0) / `additionalInterfaces` (0.3).
   */
  static jsonRpcEndpoint(card: JsonObject): string | undefined {
    for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
      const list = card[key];
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        if (!isObject(entry) || typeof entry["url"] !== "string") continue;
        const binding = String(entry["protocolBinding"] ?? entry["transport"] ?? "").toUpperCase();
        if (binding === "JSONRPC" && key === "supportedInterfaces") return entry["url"];
      }
    }
    return typeof card["url"] === "string" ? card["url"] : undefined;
  }

  status(state: string, message?: JsonObject): JsonObject {
    const s: JsonObject = { state: this.stateValue(state), timestamp: isoNow() };
    if (message !== undefined) s["message"] = message;
    return s;
  }

  task(init: { id: string; contextId: string; status: JsonObject; history?: JsonObject[]; artifacts?: JsonObject[]; metadata?: JsonObject }): JsonObject {
    const t: JsonObject = { ...this.tags("Task"), id: init.id };
    const ctx = this.contextField;
    if (ctx) t[ctx] = init.contextId;
    t["status"] = init.status;
    if (init.history && this.has("Task", "history")) t["history"] = init.history;
    if (init.artifacts && init.artifacts.length > 0) t["artifacts"] = init.artifacts;
    if (init.metadata !== undefined) t["metadata"] = init.metadata;
    return t;
  }

  statusEvent(init: { taskId: string; contextId: string; status: JsonObject; final: boolean }): JsonObject {
    const e: JsonObject = { ...this.tags("TaskStatusUpdateEvent") };
    e[this.has("TaskStatusUpdateEvent", "taskId") ? "taskId" : "id"] = init.taskId;
    const ctx = this.profile.contextField;
    if (ctx !== undefined && this.has("TaskStatusUpdateEvent", ctx)) e[ctx] = init.contextId;
    e["status"] = init.status;
    if (this.has("TaskStatusUpdateEvent", "final")) e["final"] = init.final;
    return e;
  }

  /**
   * An artifact update. 0.2+ carries `append`/`lastChunk` on the event and names artifacts by
   * `artifactId`; 0.1.0 carries them (and an `index`) on the artifact itself.
   */
  artifactEvent(init: { taskId: string; contextId: string; artifact: JsonObject; append?: boolean | undefined; lastChunk?: boolean | undefined; index?: number }): JsonObject {
    const plan = (this.artifactPlan ??= this.planArtifactEvent());
    const e: JsonObject = { ...plan.tags };
    e[plan.taskId] = init.taskId;
    if (plan.context !== undefined) e[plan.context] = init.contextId;
    const artifact: JsonObject = { ...init.artifact };
    if (plan.artifactId && typeof artifact["artifactId"] !== "string") artifact["artifactId"] = newId();
    const target = plan.flagsOnEvent ? e : artifact;
    if (init.append !== undefined && plan.append) target["append"] = init.append;
    if (init.lastChunk !== undefined && plan.lastChunk) target["lastChunk"] = init.lastChunk;
    if (plan.index && init.index !== undefined) artifact["index"] = init.index;
    e["artifact"] = artifact;
    return e;
  }

  /** Where the version puts an artifact event's members, worked out once (an event is built per streamed chunk). */
  private artifactPlan: ArtifactEventPlan | undefined;

  private planArtifactEvent(): ArtifactEventPlan {
    const ctx = this.profile.contextField;
    const flagsOnEvent = this.has("TaskArtifactUpdateEvent", "append");
    return {
      tags: this.tags("TaskArtifactUpdateEvent"),
      taskId: this.has("TaskArtifactUpdateEvent", "taskId") ? "taskId" : "id",
      context: ctx !== undefined && this.has("TaskArtifactUpdateEvent", ctx) ? ctx : undefined,
      artifactId: this.has("Artifact", "artifactId"),
      flagsOnEvent,
      append: flagsOnEvent || this.has("Artifact", "append"),
      lastChunk: flagsOnEvent || this.has("Artifact", "lastChunk"),
      index: !flagsOnEvent && this.has("Artifact", "index"),
    };
  }

  // --- reading objects --------------------------------------------------------------------------

  /** The task an event belongs to. */
  eventTaskId(event: JsonObject): string | undefined {
    const id = event["taskId"] ?? event["id"];
    return typeof id === "string" ? id : undefined;
  }

  /** Reads the params of the send/stream method, whichever style the version uses. */
  sendParams(params: JsonObject): SendRequestParts {
    const message = (isObject(params["message"]) ? params["message"] : {}) as JsonObject;
    const sendType = this.profile.params.send;
    const declaresId = (sendType ? this.profile.objects[sendType]?.properties.includes("id") : false) ?? false;
    const clientChosenTaskId = declaresId && typeof params["id"] === "string";
    const taskId = clientChosenTaskId ? (params["id"] as string) : typeof message["taskId"] === "string" ? message["taskId"] : undefined;
    const fields = this.profile.sendFields;
    const context = valueAt(params, fields.contextId);
    const contextId = typeof context === "string" ? context : undefined;
    const contextPointer = `/params${fields.contextId ?? ""}`;
    const historyLength = valueAt(params, fields.historyLength);
    const push = valueAt(params, fields.pushConfig);
    const modes = valueAt(params, fields.acceptedOutputModes);
    const nonBlocking = fields.nonBlocking !== undefined && valueAt(params, fields.nonBlocking.pointer) === fields.nonBlocking.value;
    return {
      message,
      taskId,
      clientChosenTaskId,
      undeclaredId: declaresId || this.profile.serverGeneratedTaskIds !== true ? undefined : params["id"],
      contextPointer,
      contextId,
      historyLength: typeof historyLength === "number" ? historyLength : undefined,
      blocking: !nonBlocking,
      acceptedOutputModes: Array.isArray(modes) ? modes.filter((m): m is string => typeof m === "string") : undefined,
      pushConfig: isObject(push) ? push : undefined,
      metadata: isObject(params["metadata"]) ? params["metadata"] : undefined,
    };
  }

  /** The task the params of a role's method name (TaskParamFields.taskId). */
  paramsTaskId(role: MethodRole, params: JsonObject): string | undefined {
    const id = fieldOf(params, this.profile.taskFields.taskId[role]);
    return typeof id === "string" ? id : undefined;
  }

  /** The history length the get or list params ask for. */
  historyLengthOf(params: JsonObject): number | undefined {
    const length = fieldOf(params, this.profile.taskFields.historyLength);
    return typeof length === "number" ? length : undefined;
  }

  /** The config a set request nests (0.x), or undefined where it has none (1.0: the params are the config). */
  nestedPushConfigOf(params: JsonObject): JsonObject | undefined {
    const config = fieldOf(params, this.profile.taskFields.pushConfig);
    return isObject(config) ? config : undefined;
  }

  /** Whether push configs are flat (1.0: `{ taskId, id, url, token }`) rather than nested (`{ taskId, pushNotificationConfig }`). */
  get flatPushConfigs(): boolean {
    return this.has("TaskPushNotificationConfig", "url");
  }

  /** A TaskPushNotificationConfig of this version's shape (without the stored version mark of a compat server). */
  taskPushConfig(taskId: string, stored: JsonObject): JsonObject {
    const { [PUSH_CONFIG_VERSION_FIELD]: _version, ...config } = stored;
    if (this.flatPushConfigs) return { ...config, taskId };
    // Nested (0.x): the shape of the set request, which is a TaskPushNotificationConfig.
    const fields = this.profile.taskFields;
    return { [fields.taskId.pushSet ?? "id"]: taskId, [fields.pushConfig ?? "pushNotificationConfig"]: config };
  }

  /** The push config a set/create request carries: nested in 0.x, the params themselves in 1.0 (without the task and tenant). */
  pushConfigOf(params: JsonObject): JsonObject {
    const nested = this.nestedPushConfigOf(params);
    if (nested) return nested;
    const taskField = this.profile.taskFields.taskId.pushSet;
    return Object.fromEntries(Object.entries(params).filter(([key]) => key !== taskField && key !== "tenant"));
  }

  /** The config id a get/delete request names (TaskParamFields.pushConfigId). */
  pushConfigIdOf(params: JsonObject): string | undefined {
    const id = fieldOf(params, this.profile.taskFields.pushConfigId);
    return typeof id === "string" ? id : undefined;
  }

  /** The history of a task trimmed to its last `length` messages (0 → none; ProtoJSON leaves the empty list out). */
  withHistory(task: JsonObject, length: number | undefined): JsonObject {
    if (length === undefined || !Array.isArray(task["history"])) return task;
    const history = length <= 0 ? [] : task["history"].slice(-length);
    if (history.length === 0 && this.profile.protoJson) {
      const { history: _omitted, ...rest } = task;
      return rest;
    }
    return { ...task, history };
  }
}

/** The params' value of a field the profile names (undefined where the version has no such field). */
function fieldOf(params: JsonObject, field: string | undefined): unknown {
  return field === undefined ? undefined : params[field];
}

/**
 * The state a misspelled one likely means ("complete", "Cancelled", "input_required" → "completed",
 * "canceled", "input-required"), in the spelling the caller used (lower or TASK_STATE_); undefined when none is near.
 */
function closestState(state: unknown, states: readonly string[]): string | undefined {
  if (typeof state !== "string") return undefined;
  const wanted = canonicalValue(state.trim().replace(/^task_state_/i, ""));
  let best: { value: string; distance: number } | undefined;
  for (const value of states) {
    const distance = editDistance(wanted, canonicalValue(value));
    if (distance <= Math.max(1, Math.floor(wanted.length / 4)) && (!best || distance < best.distance)) best = { value, distance };
  }
  if (!best) return undefined;
  return /^TASK_STATE_/i.test(state) ? best.value : canonicalValue(best.value);
}

/** Levenshtein distance (the strings here are short: task state names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length] as number;
}

