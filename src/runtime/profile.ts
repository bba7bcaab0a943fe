/**
 * The protocol facts of one A2A version (generated into protocol.ts as `A2A_PROFILE`) and the builders
 * and readers that let one runtime speak every version: parts tagged by `type` (0.1.0) or `kind`, tasks
 * grouped by `sessionId` (0.1.0) or `contextId`, events naming their task by `id` or `taskId`, ...
 * Everything here is decided by the profile's shapes, which are derived from the schema.
 */

/** The roles a method can play; the runtime works by role, the schema names the method. */
export type MethodRole =
  | "send"
  | "list"
  | "stream"
  | "get"
  | "cancel"
  | "resubscribe"
  | "pushSet"
  | "pushGet"
  | "pushList"
  | "pushDelete"
  | "extendedCard";

/** The shape of one protocol object, as the schema defines it. */
export interface ObjectShape {
  readonly properties: readonly string[];
  readonly required: readonly string[];
  /** Properties with a constant value (`kind: "task"`). */
  readonly consts: { readonly [property: string]: string | number };
}

export interface ProtocolProfile {
  readonly specVersion: string;
  readonly wellKnownAgentCardPath: string;
  /** The const tag of Part members ("type" in 0.1.0, "kind" in 0.2+); absent when parts are told apart by which field they have (1.0). */
  readonly discriminatorField?: string;
  /** Role → method name, for the roles this version has. */
  readonly methods: { readonly [R in MethodRole]?: string };
  /** Role → the params definition of its method. */
  readonly params: { readonly [R in MethodRole]?: string };
  /** Shapes of the protocol objects the runtime handles, by definition name. */
  readonly objects: { readonly [name: string]: ObjectShape };
  /** Every task state, in schema order. */
  readonly taskStates: readonly string[];
  /** Error definition name without "Error" → code, e.g. TaskNotFound → -32001. */
  readonly errorCodes: { readonly [name: string]: number };
  /** Whether every request definition requires `jsonrpc` (0.1.0's schema leaves it optional). */
  readonly jsonrpcRequired: boolean;
  /** The definitions a streamed result can be: Task, Message and the update events (0.1.0: only updates). */
  readonly streamResults: readonly string[];
  /** Roles whose methods answer an empty object (1.0's google.protobuf.Empty) where 0.x answers null. */
  readonly emptyResults: readonly MethodRole[];
  /** The values of Message.role, in schema order ("user", "agent"; 1.0: "ROLE_USER", ...). */
  readonly roleValues: readonly string[];
  /**
   * Role → how its results are wrapped (1.0: `{ "task": … }`, `{ "statusUpdate": … }`): the definition of
   * the wrapped object → the property it goes in. Absent for versions whose results are bare.
   */
  readonly resultWrappers: { readonly [R in MethodRole]?: { readonly [definition: string]: string } };
  /** The header (or query parameter) naming the protocol version a client speaks, where the version has one. */
  readonly versionHeader?: string;
  /** Whether the wire format is ProtoJSON (1.0): fields at their default, such as an empty list, are left out. */
  readonly protoJson: boolean;
  /** Whether error `data` is a list of google.rpc details (`[{ "@type": … }]`, 1.0) rather than any value. */
  readonly errorDetails: boolean;
}

export type JsonObject = { [key: string]: unknown };

const TERMINAL = ["completed", "canceled", "failed", "rejected"];
const INTERRUPTED = ["input-required", "auth-required"];

/** "TASK_STATE_INPUT_REQUIRED", "input-required" → "input-required"; "ROLE_USER" → "user". */
export function canonicalValue(value: unknown): string {
  return String(value)
    .replace(/^(TASK_STATE_|ROLE_)/, "")
    .toLowerCase()
    .replace(/_/g, "-");
}

/** The value of an enumeration that means `canonical` (the version writes states and roles its own way). */
function enumValue(values: readonly string[], canonical: string): string {
  return values.find((v) => canonicalValue(v) === canonical) ?? canonical;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A random id (UUID v4). */
export function newId(): string {
  return globalThis.crypto.randomUUID();
}

export interface SendRequestParts {
  message: JsonObject;
  /** The task the message continues: the message's taskId, or (0.1.0) the params' client-chosen id. */
  taskId: string | undefined;
  /** Whether the client names the task id of a new task (0.1.0 `tasks/send` `id`). */
  clientChosenTaskId: boolean;
  contextId: string | undefined;
  historyLength: number | undefined;
  blocking: boolean;
  acceptedOutputModes: string[] | undefined;
  pushConfig: JsonObject | undefined;
  metadata: JsonObject | undefined;
}

export class ProtocolShapes {
  private readonly properties = new Map<string, Set<string>>();
  private readonly constTags = new Map<string, Readonly<JsonObject>>();

  constructor(readonly profile: ProtocolProfile) {
    for (const [name, shape] of Object.entries(profile.objects)) {
      this.properties.set(name, new Set(shape.properties));
      this.constTags.set(name, Object.freeze({ ...shape.consts }));
    }
  }

  has(object: string, property: string): boolean {
    return this.properties.get(object)?.has(property) ?? false;
  }

  /** The constant `kind` (or other tag) an object carries, e.g. Task → { kind: "task" }. */
  private tags(object: string): Readonly<JsonObject> {
    return this.constTags.get(object) ?? {};
  }

  /** The property that groups tasks into a conversation: contextId, or 0.1.0's sessionId. */
  get contextField(): string | undefined {
    return this.has("Task", "contextId") ? "contextId" : this.has("Task", "sessionId") ? "sessionId" : undefined;
  }

  isTerminal(state: unknown): boolean {
    return typeof state === "string" && TERMINAL.includes(canonicalValue(state));
  }

  isInterrupted(state: unknown): boolean {
    return typeof state === "string" && INTERRUPTED.includes(canonicalValue(state));
  }

  /** Whether the version has a task state (0.1.0 has no "rejected" nor "auth-required"). */
  hasState(state: string): boolean {
    return this.profile.taskStates.some((s) => canonicalValue(s) === state);
  }

  /** The version's spelling of a task state ("completed" → "TASK_STATE_COMPLETED" in 1.0). */
  stateValue(state: string): string {
    return enumValue(this.profile.taskStates, state);
  }

  /** A result of a method, wrapped where the version wraps results (1.0: `{ "task": … }`). */
  wrap(role: MethodRole | undefined, value: unknown): unknown {
    const wrappers = role ? this.profile.resultWrappers[role] : undefined;
    if (!wrappers || !isObject(value)) return value;
    const type = { task: "Task", message: "Message", "status-update": "TaskStatusUpdateEvent", "artifact-update": "TaskArtifactUpdateEvent", unknown: "" }[this.classify(value)];
    const property = wrappers[type];
    return property ? { [property]: value } : value;
  }

  /** The object inside a wrapped result (1.0), or the result itself. */
  unwrap(role: MethodRole | undefined, value: unknown): unknown {
    const wrappers = role ? this.profile.resultWrappers[role] : undefined;
    if (!wrappers || !isObject(value)) return value;
    for (const property of Object.values(wrappers)) if (property in value) return value[property];
    return value;
  }

  // --- building objects -------------------------------------------------------------------------

  textPart(text: string): JsonObject {
    const tag = this.profile.discriminatorField;
    return tag ? { [tag]: "text", text } : { text };
  }

  dataPart(data: JsonObject): JsonObject {
    const tag = this.profile.discriminatorField;
    return tag ? { [tag]: "data", data } : { data };
  }

  /**
   * Where an agent card says its JSON-RPC endpoint is: `url` (0.x), or the JSONRPC entry of
   * `supportedInterfaces` (1.0) / `additionalInterfaces` (0.3).
   */
  static jsonRpcEndpoint(card: JsonObject): string | undefined {
    for (const key of ["supportedInterfaces", "additionalInterfaces"]) {
      const list = card[key];
      if (!Array.isArray(list)) continue;
      for (const entry of list) {
        if (!isObject(entry) || typeof entry.url !== "string") continue;
        const binding = String(entry.protocolBinding ?? entry.transport ?? "").toUpperCase();
        if (binding === "JSONRPC" && key === "supportedInterfaces") return entry.url;
      }
    }
    return typeof card.url === "string" ? card.url : undefined;
  }

  /** A message of this version's shape; ids the version does not have are left out. */
  message(init: { role: "agent" | "user"; parts: JsonObject[]; taskId?: string; contextId?: string; messageId?: string; metadata?: JsonObject }): JsonObject {
    const m: JsonObject = { ...this.tags("Message"), role: enumValue(this.profile.roleValues, init.role), parts: init.parts };
    if (this.has("Message", "messageId")) m.messageId = init.messageId ?? newId();
    if (init.metadata !== undefined) m.metadata = init.metadata;
    return this.stamp(m, init.taskId, init.contextId);
  }

  /** The message with the task and context ids given, where the version's Message carries them. */
  stamp(message: JsonObject, taskId: string | undefined, contextId: string | undefined): JsonObject {
    const out = { ...message };
    if (taskId !== undefined && this.has("Message", "taskId")) out.taskId = taskId;
    if (contextId !== undefined && this.has("Message", "contextId")) out.contextId = contextId;
    return out;
  }

  status(state: string, message?: JsonObject): JsonObject {
    const s: JsonObject = { state: this.stateValue(state), timestamp: new Date().toISOString() };
    if (message !== undefined) s.message = message;
    return s;
  }

  task(init: { id: string; contextId: string; status: JsonObject; history?: JsonObject[]; artifacts?: JsonObject[]; metadata?: JsonObject }): JsonObject {
    const t: JsonObject = { ...this.tags("Task"), id: init.id };
    const ctx = this.contextField;
    if (ctx) t[ctx] = init.contextId;
    t.status = init.status;
    if (init.history && this.has("Task", "history")) t.history = init.history;
    if (init.artifacts && init.artifacts.length > 0) t.artifacts = init.artifacts;
    if (init.metadata !== undefined) t.metadata = init.metadata;
    return t;
  }

  statusEvent(init: { taskId: string; contextId: string; status: JsonObject; final: boolean }): JsonObject {
    const e: JsonObject = { ...this.tags("TaskStatusUpdateEvent") };
    e[this.has("TaskStatusUpdateEvent", "taskId") ? "taskId" : "id"] = init.taskId;
    if (this.has("TaskStatusUpdateEvent", "contextId")) e.contextId = init.contextId;
    e.status = init.status;
    if (this.has("TaskStatusUpdateEvent", "final")) e.final = init.final;
    return e;
  }

  /**
   * An artifact update. 0.2+ carries `append`/`lastChunk` on the event and names artifacts by
   * `artifactId`; 0.1.0 carries them (and an `index`) on the artifact itself.
   */
  artifactEvent(init: { taskId: string; contextId: string; artifact: JsonObject; append?: boolean; lastChunk?: boolean; index?: number }): JsonObject {
    const e: JsonObject = { ...this.tags("TaskArtifactUpdateEvent") };
    e[this.has("TaskArtifactUpdateEvent", "taskId") ? "taskId" : "id"] = init.taskId;
    if (this.has("TaskArtifactUpdateEvent", "contextId")) e.contextId = init.contextId;
    const artifact: JsonObject = { ...init.artifact };
    if (this.has("Artifact", "artifactId") && typeof artifact.artifactId !== "string") artifact.artifactId = newId();
    const onEvent = this.has("TaskArtifactUpdateEvent", "append");
    const target = onEvent ? e : artifact;
    if (init.append !== undefined && (onEvent || this.has("Artifact", "append"))) target.append = init.append;
    if (init.lastChunk !== undefined && (onEvent || this.has("Artifact", "lastChunk"))) target.lastChunk = init.lastChunk;
    if (!onEvent && this.has("Artifact", "index") && init.index !== undefined) artifact.index = init.index;
    e.artifact = artifact;
    return e;
  }

  // --- reading objects --------------------------------------------------------------------------

  /** The task an event belongs to. */
  eventTaskId(event: JsonObject): string | undefined {
    const id = event.taskId ?? event.id;
    return typeof id === "string" ? id : undefined;
  }

  /** What kind of stream item a value is: a task, a message, a status or artifact update. */
  classify(value: unknown): "task" | "message" | "status-update" | "artifact-update" | "unknown" {
    if (!isObject(value)) return "unknown";
    const kind = value.kind;
    if (kind === "task" || kind === "message" || kind === "status-update" || kind === "artifact-update") return kind;
    if ("artifact" in value) return "artifact-update";
    if ("status" in value && ("final" in value || "taskId" in value)) return "status-update";
    if ("status" in value && "id" in value) return this.has("TaskStatusUpdateEvent", "taskId") ? "task" : "status-update";
    if ("role" in value && "parts" in value) return "message";
    return "unknown";
  }

  /** Reads the params of the send/stream method, whichever style the version uses. */
  sendParams(params: JsonObject): SendRequestParts {
    const message = (isObject(params.message) ? params.message : {}) as JsonObject;
    const configuration = isObject(params.configuration) ? params.configuration : undefined;
    const clientChosenTaskId = typeof params.id === "string";
    const taskId = clientChosenTaskId ? (params.id as string) : typeof message.taskId === "string" ? message.taskId : undefined;
    const contextId =
      typeof message.contextId === "string" ? message.contextId : typeof params.sessionId === "string" ? params.sessionId : undefined;
    const historyLength = configuration?.historyLength ?? params.historyLength;
    const push = configuration?.pushNotificationConfig ?? configuration?.taskPushNotificationConfig ?? params.pushNotification;
    const modes = configuration?.acceptedOutputModes;
    return {
      message,
      taskId,
      clientChosenTaskId,
      contextId,
      historyLength: typeof historyLength === "number" ? historyLength : undefined,
      blocking: configuration?.blocking !== false && configuration?.returnImmediately !== true,
      acceptedOutputModes: Array.isArray(modes) ? modes.filter((m): m is string => typeof m === "string") : undefined,
      pushConfig: isObject(push) ? push : undefined,
      metadata: isObject(params.metadata) ? params.metadata : undefined,
    };
  }

  /**
   * Params of the send/stream method in this version's shape: `{ message, configuration }` (0.2+, the
   * message carrying the task and context it continues), or 0.1.0's `{ id, sessionId, message }`.
   */
  sendParamsFor(
    message: JsonObject,
    options: { taskId?: string; contextId?: string; blocking?: boolean; historyLength?: number; acceptedOutputModes?: string[] } = {},
  ): JsonObject {
    const paramsType = this.profile.params.send;
    const shape = paramsType ? this.profile.objects[paramsType] : undefined;
    if (shape?.required.includes("id")) {
      const params: JsonObject = { id: options.taskId ?? newId(), message };
      if (options.contextId !== undefined && shape.properties.includes("sessionId")) params.sessionId = options.contextId;
      if (options.historyLength !== undefined) params.historyLength = options.historyLength;
      return params;
    }
    const params: JsonObject = { message: this.stamp(message, options.taskId, options.contextId) };
    if (options.blocking !== undefined || options.historyLength !== undefined || options.acceptedOutputModes !== undefined) {
      const configuration: JsonObject = { acceptedOutputModes: options.acceptedOutputModes ?? ["text/plain"] };
      if (options.blocking !== undefined) configuration.blocking = options.blocking;
      if (options.historyLength !== undefined) configuration.historyLength = options.historyLength;
      params.configuration = configuration;
    }
    return params;
  }

  /** The task a push-config params object names: `taskId` (0.2+) or `id` (0.1.0 and TaskIdParams). */
  paramsTaskId(params: JsonObject): string | undefined {
    const id = params.taskId ?? params.id;
    return typeof id === "string" ? id : undefined;
  }

  /** Whether push configs are flat (1.0: `{ taskId, id, url, token }`) rather than nested (`{ taskId, pushNotificationConfig }`). */
  get flatPushConfigs(): boolean {
    return this.has("TaskPushNotificationConfig", "url");
  }

  /** A TaskPushNotificationConfig of this version's shape. */
  taskPushConfig(taskId: string, config: JsonObject): JsonObject {
    if (this.flatPushConfigs) return { ...config, taskId };
    const field = this.has("TaskPushNotificationConfig", "taskId") ? "taskId" : "id";
    return { [field]: taskId, pushNotificationConfig: config };
  }

  /** The push config a set/create request carries: nested in 0.x, the params themselves in 1.0. */
  pushConfigOf(params: JsonObject): JsonObject {
    if (isObject(params.pushNotificationConfig)) return params.pushNotificationConfig;
    const { taskId: _t, tenant: _n, ...config } = params;
    return config;
  }

  /** The config id a get/delete request names: `pushNotificationConfigId` (0.x), or `id` beside `taskId` (1.0). */
  pushConfigIdOf(params: JsonObject): string | undefined {
    if (typeof params.pushNotificationConfigId === "string") return params.pushNotificationConfigId;
    return typeof params.taskId === "string" && typeof params.id === "string" ? params.id : undefined;
  }

  /** The history of a task trimmed to its last `length` messages (0 → none; ProtoJSON leaves the empty list out). */
  withHistory(task: JsonObject, length: number | undefined): JsonObject {
    if (length === undefined || !Array.isArray(task.history)) return task;
    const history = length <= 0 ? [] : task.history.slice(-length);
    if (history.length === 0 && this.profile.protoJson) {
      const { history: _omitted, ...rest } = task;
      return rest;
    }
    return { ...task, history };
  }
}
