/**
 * The part of ProtocolShapes (protocol-shapes.ts) the client needs too: messages and send params built the
 * version's way, stream results unwrapped and classified, task states read. In a module of its own so that
 * a client (a browser bundle, a client-only output) takes these and not the server's builders and readers.
 */
import { isObject, type JsonObject } from "./json.js";
import { canonicalValue, INTERRUPTED_STATES, isTerminalState, type MethodRole, type ProfileObject, type ProtocolProfile } from "./profile.js";
import { newId } from "./random-ids.js";

/** Which ids a version's Message carries. */
interface MessageFields {
  readonly messageId: boolean;
  readonly taskId: boolean;
  /** The version's context field (the profile's contextField), when its Message carries one. */
  readonly context: string | undefined;
}

export class MessageShapes {
  private readonly properties = new Map<string, Set<string>>();
  private readonly constTags = new Map<string, Readonly<JsonObject>>();

  readonly profile: ProtocolProfile;

  constructor(profile: ProtocolProfile) {
    this.profile = profile;
    for (const [name, shape] of Object.entries(profile.objects)) {
      this.properties.set(name, new Set(shape.properties));
      this.constTags.set(name, Object.freeze({ ...shape.consts }));
    }
  }

  has(object: ProfileObject, property: string): boolean {
    return this.properties.get(object)?.has(property) ?? false;
  }

  /** The constant `kind` (or other tag) an object carries, e.g. Task → { kind: "task" }. */
  protected tags(object: string): Readonly<JsonObject> {
    return this.constTags.get(object) ?? {};
  }

  /** The property that groups tasks into a conversation: contextId, or 0.1.0's sessionId (the profile's contextField). */
  get contextField(): string | undefined {
    return this.profile.contextField;
  }

  isTerminal(state: unknown): boolean {
    return isTerminalState(state);
  }

  isInterrupted(state: unknown): boolean {
    return typeof state === "string" && INTERRUPTED_STATES.includes(canonicalValue(state));
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
   * A message of this version's shape; ids the version does not have are left out. `M`: the type the caller
   * reads it as (a generated client: the version's Message), built from the profile, not checked against it.
   */
  message<M extends object = JsonObject>(init: { role: "agent" | "user"; parts: JsonObject[]; taskId?: string; contextId?: string; messageId?: string; metadata?: JsonObject }): M {
    const m: JsonObject = { ...this.tags("Message"), role: this.roleValue(init.role), parts: init.parts };
    if (this.messageFields.messageId) m["messageId"] = init.messageId ?? newId();
    if (init.metadata !== undefined) m["metadata"] = init.metadata;
    // Stamped in place: `m` is new (stamp would copy it once more).
    if (init.taskId !== undefined && this.messageFields.taskId) m["taskId"] = init.taskId;
    const context = this.messageFields.context;
    if (init.contextId !== undefined && context !== undefined) m[context] = init.contextId;
    return m as M;
  }

  /** The message with the task and context ids given, where the version's Message carries them. */
  stamp(message: JsonObject, taskId: string | undefined, contextId: string | undefined): JsonObject {
    // Object.assign, not a spread: V8 (node 20) copies an object through a spread that then gets new
    // properties ~15× slower (1.4 µs against 0.1 µs for a parsed user message). An own "__proto__" key,
    // which Object.assign would set as the copy's prototype, takes the spread.
    const out: JsonObject = Object.prototype.hasOwnProperty.call(message, "__proto__") ? { ...message } : Object.assign({}, message);
    if (taskId !== undefined && this.messageFields.taskId) out["taskId"] = taskId;
    const context = this.messageFields.context;
    if (contextId !== undefined && context !== undefined) out[context] = contextId;
    return out;
  }

  /** Which ids the version's Message carries (read for every message the runtime writes). */
  private get messageFields(): MessageFields {
    if (this.messageFieldsCache !== undefined) return this.messageFieldsCache;
    const ctx = this.profile.contextField;
    const context = ctx !== undefined && this.has("Message", ctx) ? ctx : undefined;
    return (this.messageFieldsCache = { messageId: this.has("Message", "messageId"), taskId: this.has("Message", "taskId"), context });
  }

  private messageFieldsCache: MessageFields | undefined;

  /** The version's spelling of a role ("agent" → "ROLE_AGENT" in 1.0), looked up once per role. */
  private roleValue(role: string): string {
    let value = this.roleValues.get(role);
    if (value === undefined) {
      value = enumValue(this.profile.roleValues, role);
      this.roleValues.set(role, value);
    }
    return value;
  }

  private readonly roleValues = new Map<string, string>();

  /** What kind of stream item a value is: a task, a message, a status or artifact update. */
  classify(value: unknown): "task" | "message" | "status-update" | "artifact-update" | "unknown" {
    if (!isObject(value)) return "unknown";
    const kind = value["kind"];
    if (kind === "task" || kind === "message" || kind === "status-update" || kind === "artifact-update") return kind;
    if ("artifact" in value) return "artifact-update";
    if ("status" in value && ("final" in value || "taskId" in value)) return "status-update";
    if ("status" in value && "id" in value) return this.has("TaskStatusUpdateEvent", "taskId") ? "task" : "status-update";
    if ("role" in value && "parts" in value) return "message";
    return "unknown";
  }

  /**
   * Params of the send/stream method in this version's shape: `{ message, configuration }` (0.2+, the
   * message carrying the task and context it continues), or 0.1.0's `{ id, sessionId, message }`. `P`: the
   * type the caller reads them as (a generated client: the send method's params), as for {@link message}.
   */
  sendParamsFor<P extends object = JsonObject>(
    message: JsonObject,
    options: { taskId?: string; contextId?: string; blocking?: boolean; historyLength?: number; acceptedOutputModes?: string[] } = {},
  ): P {
    const paramsType = this.profile.params.send;
    const shape = paramsType ? this.profile.objects[paramsType] : undefined;
    const fields = this.profile.sendFields;
    if (shape?.required.includes("id")) {
      // 0.1.0: the client names the task; the context and history length sit beside the message.
      const params: JsonObject = { id: options.taskId ?? newId(), message };
      if (options.contextId !== undefined && fields.contextId !== undefined && !fields.contextId.startsWith("/message/")) setAt(params, fields.contextId, options.contextId);
      if (options.historyLength !== undefined && fields.historyLength !== undefined) setAt(params, fields.historyLength, options.historyLength);
      return params as P;
    }
    const params: JsonObject = { message: this.stamp(message, options.taskId, options.contextId) };
    if (options.blocking !== undefined || options.historyLength !== undefined || options.acceptedOutputModes !== undefined) {
      if (fields.acceptedOutputModes !== undefined) setAt(params, fields.acceptedOutputModes, options.acceptedOutputModes ?? ["text/plain"]);
      if (options.blocking !== undefined && fields.nonBlocking !== undefined) {
        setAt(params, fields.nonBlocking.pointer, options.blocking ? !fields.nonBlocking.value : fields.nonBlocking.value);
      }
      if (options.historyLength !== undefined && fields.historyLength !== undefined) setAt(params, fields.historyLength, options.historyLength);
    }
    return params as P;
  }
}

/** Sets the value at a JSON pointer (`/a/b`) inside an object, creating the objects on the way. */
function setAt(target: JsonObject, pointer: string, value: unknown): void {
  const keys = pointer.split("/").slice(1);
  const last = keys.pop();
  if (last === undefined) return;
  let current = target;
  for (const key of keys) {
    const next = current[key];
    if (isObject(next)) current = next;
    else {
      const created: JsonObject = {};
      current[key] = created;
      current = created;
    }
  }
  current[last] = value;
}

/** The value of an enumeration that means `canonical` (the version writes states and roles its own way). */
function enumValue(values: readonly string[], canonical: string): string {
  return values.find((v) => canonicalValue(v) === canonical) ?? canonical;
}
