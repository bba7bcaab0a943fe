/**
 * A2A 0.3.0's gRPC and HTTP+JSON bindings speak the shapes of its proto (`a2a-0.3.0.proto`, package a2a.v1:
 * ProtoJSON on HTTP+JSON, protobuf on gRPC), which differ from the JSON-RPC shapes of its JSON Schema
 * (`a2a-0.3.0.json`) that the service speaks. Where the two
 * disagree the specification text (specification-0.3.0.md §3.5.6, §7) decides what a field means; this maps
 * each rpc's request and response between them, both ways:
 *
 * - requests name resources AIP-style: `name: "tasks/{id}"`, `"tasks/{id}/pushNotificationConfigs/{configId}"`,
 *   `parent: "tasks/{id}"` ⇄ the params' `id`, `taskId`, `pushNotificationConfigId`;
 * - objects have no `kind`; a Part is a oneof (`text` | `file` | `data`), a file `fileWithUri` |
 *   `fileWithBytes`, a data part's object sits in `data.data`; a message's parts are `content`;
 * - enums are proto names: `TASK_STATE_CANCELLED` ⇄ "canceled", `TASK_STATE_UNSPECIFIED` ⇄ "unknown",
 *   `ROLE_USER` ⇄ "user";
 * - `SendMessageConfiguration.pushNotification` ⇄ `pushNotificationConfig`; a push config result is named
 *   `tasks/{id}/pushNotificationConfigs/{configId}` ⇄ `taskId`; the list answer is `{ configs }` ⇄ an array;
 * - `blocking` is a plain bool (default false) on the wire: a configuration sent without it is non-blocking
 *   there, while a JSON-RPC configuration without it is blocking; the client writes it out, the server
 *   reads a wire configuration's missing `blocking` as false;
 * - security schemes are a oneof (`apiKeySecurityScheme`, …) ⇄ `{ type: "apiKey", in, … }`; a security
 *   requirement is `{ schemes: { name: { list } } }` ⇄ `{ name: [scopes] }`.
 *
 * What the proto has no field for is lost on this binding (documented in docs/grpc.md and docs/interop.md): a Part's
 * `metadata`, a file's `name`, a message's `referenceTaskIds`, the card's `iconUrl`, the capability
 * `stateTransitionHistory`.
 */
import { ProtoJsonError, type WireShapeAdapter } from "./shapes.js";

type Obj = { [key: string]: unknown };

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function obj(value: unknown): Obj {
  return isObj(value) ? value : {};
}

/** Copies the keys of `from` that are defined (the proto's JSON and the schema's leave defaults out alike). */
function pick(from: Obj, keys: readonly string[]): Obj {
  const out: Obj = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

function list<T>(value: unknown, each: (item: unknown) => T): T[] | undefined {
  return Array.isArray(value) ? value.map(each) : undefined;
}

function defined(object: Obj): Obj {
  for (const key of Object.keys(object)) if (object[key] === undefined) delete object[key];
  return object;
}

// ---------------------------------------------------------------------------------------------------
// Enums

/** "TASK_STATE_INPUT_REQUIRED" → "input-required"; CANCELLED → "canceled"; UNSPECIFIED → "unknown". */
function stateFromWire(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (value === "TASK_STATE_CANCELLED") return "canceled";
  if (value === "TASK_STATE_UNSPECIFIED") return "unknown";
  return value.replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-");
}

function stateToWire(value: unknown): unknown {
  if (typeof value !== "string") return value;
  if (value === "canceled") return "TASK_STATE_CANCELLED";
  if (value === "unknown") return "TASK_STATE_UNSPECIFIED";
  return `TASK_STATE_${value.toUpperCase().replace(/-/g, "_")}`;
}

const roleFromWire = (value: unknown): unknown => (typeof value === "string" ? value.replace(/^ROLE_/, "").toLowerCase() : value);
const roleToWire = (value: unknown): unknown => (typeof value === "string" ? `ROLE_${value.toUpperCase()}` : value);

// ---------------------------------------------------------------------------------------------------
// Objects: wire (proto JSON) → service (0.3.0 JSON) and back

function partFromWire(value: unknown, path: string): Obj {
  const p = obj(value);
  const members = ["text", "file", "data"].filter((m) => p[m] !== undefined);
  // A oneof with two members set is not a Part of the proto (ProtoJSON forbids it); none set is left to the validator.
  if (members.length > 1) throw new ProtoJsonError(path, `a Part has one of text, file, data; got ${members.join(" and ")}`);
  if (p["text"] !== undefined) return { kind: "text", text: p["text"] };
  if (p["file"] !== undefined) {
    const f = obj(p["file"]);
    if (f["fileWithUri"] !== undefined && f["fileWithBytes"] !== undefined) throw new ProtoJsonError(`${path}.file`, "a FilePart has one of fileWithUri, fileWithBytes; got both");
    return { kind: "file", file: defined({ uri: f["fileWithUri"], bytes: f["fileWithBytes"], mimeType: f["mimeType"] }) };
  }
  if (p["data"] !== undefined) return { kind: "data", data: obj(p["data"])["data"] ?? {} };
  return {}; // no member set: the service's validator names what is missing
}

function partToWire(value: unknown): Obj {
  const p = obj(value);
  if (p["kind"] === "file" || p["file"] !== undefined) {
    const f = obj(p["file"]);
    return { file: defined({ fileWithUri: f["uri"], fileWithBytes: f["bytes"], mimeType: f["mimeType"] }) };
  }
  if (p["kind"] === "data" || p["data"] !== undefined) return { data: { data: p["data"] } };
  return { text: p["text"] };
}

/**
 * A wire message as the service's. In a request (`path` given) a `content` that is missing or not a list
 * stays so, for the validator to name; in an answer it reads as no parts (proto3 leaves an empty list out).
 */
function messageFromWire(value: unknown, path?: string): Obj {
  const m = obj(value);
  const parts = Array.isArray(m["content"]) ? m["content"].map((p, i) => partFromWire(p, `${path ?? "message"}.content[${i}]`)) : path === undefined ? [] : m["content"];
  return defined({ kind: "message", ...pick(m, ["messageId", "contextId", "taskId", "metadata", "extensions"]), role: roleFromWire(m["role"]), parts });
}

function messageToWire(value: unknown): Obj {
  const m = obj(value);
  return defined({ ...pick(m, ["messageId", "contextId", "taskId", "metadata", "extensions"]), role: roleToWire(m["role"]), content: list(m["parts"], partToWire) });
}

function statusFromWire(value: unknown): Obj {
  const s = obj(value);
  return defined({ state: stateFromWire(s["state"]), message: s["message"] === undefined ? undefined : messageFromWire(s["message"]), timestamp: s["timestamp"] });
}

function statusToWire(value: unknown): Obj {
  const s = obj(value);
  return defined({ state: stateToWire(s["state"]), message: s["message"] === undefined ? undefined : messageToWire(s["message"]), timestamp: s["timestamp"] });
}

function artifactFromWire(value: unknown): Obj {
  const a = obj(value);
  return defined({ ...pick(a, ["artifactId", "name", "description", "metadata", "extensions"]), parts: list(a["parts"], (p) => partFromWire(p, "artifact.parts")) ?? [] });
}

function artifactToWire(value: unknown): Obj {
  const a = obj(value);
  return defined({ ...pick(a, ["artifactId", "name", "description", "metadata", "extensions"]), parts: list(a["parts"], partToWire) });
}

function taskFromWire(value: unknown): Obj {
  const t = obj(value);
  return defined({
    kind: "task",
    ...pick(t, ["id", "contextId", "metadata"]),
    status: statusFromWire(t["status"]),
    artifacts: list(t["artifacts"], artifactFromWire),
    history: list(t["history"], messageFromWire),
  });
}

function taskToWire(value: unknown): Obj {
  const t = obj(value);
  return defined({ ...pick(t, ["id", "contextId", "metadata"]), status: statusToWire(t["status"]), artifacts: list(t["artifacts"], artifactToWire), history: list(t["history"], messageToWire) });
}

/** A stream event or a send result: the wire's oneof member → the service's object with its `kind`. */
function eventFromWire(value: unknown): unknown {
  const e = obj(value);
  if (e["task"] !== undefined) return taskFromWire(e["task"]);
  if (e["message"] !== undefined) return messageFromWire(e["message"]);
  if (e["statusUpdate"] !== undefined) {
    const u = obj(e["statusUpdate"]);
    return defined({ kind: "status-update", ...pick(u, ["taskId", "contextId", "metadata"]), status: statusFromWire(u["status"]), final: u["final"] ?? false });
  }
  if (e["artifactUpdate"] !== undefined) {
    const u = obj(e["artifactUpdate"]);
    return defined({ kind: "artifact-update", ...pick(u, ["taskId", "contextId", "metadata", "append", "lastChunk"]), artifact: artifactFromWire(u["artifact"]) });
  }
  return e;
}

function eventToWire(value: unknown): Obj {
  const e = obj(value);
  switch (e["kind"]) {
    case "task":
      return { task: taskToWire(e) };
    case "message":
      return { message: messageToWire(e) };
    case "status-update":
      return { statusUpdate: defined({ ...pick(e, ["taskId", "contextId", "metadata", "final"]), status: statusToWire(e["status"]) }) };
    case "artifact-update":
      return { artifactUpdate: defined({ ...pick(e, ["taskId", "contextId", "metadata", "append", "lastChunk"]), artifact: artifactToWire(e["artifact"]) }) };
    default:
      // A result without `kind` (a 0.3 server may leave it out): a task has a status, a message a role.
      return "status" in e && "id" in e ? { task: taskToWire(e) } : { message: messageToWire(e) };
  }
}

const pushConfigKeys = ["id", "url", "token", "authentication"] as const;

function pushConfigResultToWire(value: unknown): Obj {
  const c = obj(value);
  const config = obj(c["pushNotificationConfig"]);
  return { name: `tasks/${String(c["taskId"])}/pushNotificationConfigs/${String(config["id"] ?? "")}`, pushNotificationConfig: pick(config, pushConfigKeys) };
}

function pushConfigResultFromWire(value: unknown): Obj {
  const c = obj(value);
  const [taskId] = parseName(String(c["name"] ?? ""), CONFIG_NAME, "name", true);
  return { taskId, pushNotificationConfig: pick(obj(c["pushNotificationConfig"]), pushConfigKeys) };
}

// Security schemes: the proto's oneof ⇄ OpenAPI's `type`.
const SCHEME_TYPES: Array<[string, string]> = [
  ["apiKeySecurityScheme", "apiKey"],
  ["httpAuthSecurityScheme", "http"],
  ["oauth2SecurityScheme", "oauth2"],
  ["openIdConnectSecurityScheme", "openIdConnect"],
  ["mtlsSecurityScheme", "mutualTLS"],
];

function schemeFromWire(value: unknown): Obj {
  const s = obj(value);
  for (const [member, type] of SCHEME_TYPES) {
    if (s[member] === undefined) continue;
    const { location, ...rest } = obj(s[member]);
    return defined({ type, ...rest, in: location });
  }
  return {};
}

function schemeToWire(value: unknown): Obj {
  const { type, in: location, ...rest } = obj(value);
  const member = SCHEME_TYPES.find(([, t]) => t === type)?.[0];
  return member ? { [member]: defined({ ...rest, location }) } : {};
}

const securityFromWire = (value: unknown) => list(value, (r) => Object.fromEntries(Object.entries(obj(obj(r)["schemes"])).map(([name, scopes]) => [name, obj(scopes)["list"] ?? []])));
const securityToWire = (value: unknown) => list(value, (r) => ({ schemes: Object.fromEntries(Object.entries(obj(r)).map(([name, scopes]) => [name, { list: scopes }])) }));

function mapValues(value: unknown, each: (v: unknown) => unknown): Obj | undefined {
  return isObj(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, each(v)])) : undefined;
}

const CARD_KEYS = ["protocolVersion", "name", "description", "url", "preferredTransport", "additionalInterfaces", "provider", "version", "documentationUrl", "capabilities", "defaultInputModes", "defaultOutputModes", "supportsAuthenticatedExtendedCard", "signatures"];
const SKILL_KEYS = ["id", "name", "description", "tags", "examples", "inputModes", "outputModes"];

function cardFromWire(value: unknown): Obj {
  const c = obj(value);
  return defined({
    ...pick(c, CARD_KEYS),
    securitySchemes: mapValues(c["securitySchemes"], schemeFromWire),
    security: securityFromWire(c["security"]),
    skills: list(c["skills"], (s) => defined({ ...pick(obj(s), SKILL_KEYS), security: securityFromWire(obj(s)["security"]) })) ?? [],
  });
}

function cardToWire(value: unknown): Obj {
  const c = obj(value);
  const capabilities = c["capabilities"] === undefined ? undefined : pick(obj(c["capabilities"]), ["streaming", "pushNotifications", "extensions"]);
  return defined({
    ...pick(c, CARD_KEYS),
    capabilities,
    securitySchemes: mapValues(c["securitySchemes"], schemeToWire),
    security: securityToWire(c["security"]),
    skills: list(c["skills"], (s) => defined({ ...pick(obj(s), SKILL_KEYS), security: securityToWire(obj(s)["security"]) })),
  });
}

// ---------------------------------------------------------------------------------------------------
// Resource names

const TASK_NAME = /^tasks\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]*)$/;

/** The ids in an AIP resource name; a name that does not match is a bad field of the request. */
function parseName(name: string, pattern: RegExp, field: string, config = false): string[] {
  const match = pattern.exec(name);
  if (!match) throw new ProtoJsonError(field, `expected "${config ? "tasks/{id}/pushNotificationConfigs/{configId}" : "tasks/{id}"}", got ${JSON.stringify(name)}`);
  // The ids as they are: a REST route has percent-decoded its path once already, and a gRPC name is not encoded.
  return match.slice(1);
}

const taskName = (id: unknown) => `tasks/${String(id ?? "")}`;

/** An int32 field of the proto (`history_length`): a whole number out of its range is a bad field (the proto cannot carry it). */
function int32(value: unknown, field: string): unknown {
  if (typeof value === "number" && Number.isInteger(value) && (value < -2147483648 || value > 2147483647)) {
    throw new ProtoJsonError(field, `${value} is out of the range of int32`);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------
// Pointers: where a field of the service's params sits in the wire request

/** A part's pointer tokens (after `/parts/N`) → the wire part's; a field the proto has no place for → the part. */
function partTokensToWire(tokens: string[]): string[] {
  const [first, second, ...rest] = tokens;
  if (first === "file" && second !== undefined) {
    if (second === "uri") return ["file", "fileWithUri", ...rest];
    if (second === "bytes") return ["file", "fileWithBytes", ...rest];
    return second === "mimeType" ? ["file", "mimeType", ...rest] : ["file"];
  }
  if (first === "data") return ["data", "data", ...tokens.slice(1)];
  if (first === "text" || first === "file") return tokens;
  return []; // `kind`, `metadata`: the part itself
}

/** A message's pointer tokens → the wire message's (`parts` → `content`; `kind` is not on the wire). */
function messageTokensToWire(tokens: string[]): string[] {
  const [first, index, ...rest] = tokens;
  if (first === "parts") return index === undefined ? ["content"] : ["content", index, ...partTokensToWire(rest)];
  if (first === "kind" || first === "referenceTaskIds") return [];
  return tokens;
}

const escapeToken = (t: string) => t.replace(/~/g, "~0").replace(/\//g, "~1");
const unescapeToken = (t: string) => t.replace(/~1/g, "/").replace(/~0/g, "~");

function pointerTokensToWire(rpc: string, tokens: string[]): string[] {
  const [first, ...rest] = tokens;
  switch (rpc) {
    case "SendMessage":
    case "SendStreamingMessage":
      if (first === "message") return ["message", ...messageTokensToWire(rest)];
      if (first === "configuration" && rest[0] === "pushNotificationConfig") return ["configuration", "pushNotification", ...rest.slice(1)];
      return tokens;
    case "GetTask":
    case "CancelTask":
    case "TaskSubscription":
      return first === "id" ? ["name"] : tokens;
    case "CreateTaskPushNotificationConfig":
      if (first === "taskId") return ["parent"];
      return first === "pushNotificationConfig" ? ["config", "pushNotificationConfig", ...rest] : tokens;
    case "GetTaskPushNotificationConfig":
    case "DeleteTaskPushNotificationConfig":
      return first === "id" || first === "pushNotificationConfigId" ? ["name"] : tokens;
    case "ListTaskPushNotificationConfig":
      return first === "id" ? ["parent"] : tokens;
    default:
      return tokens;
  }
}

// ---------------------------------------------------------------------------------------------------
// Per rpc

export const SHAPES_0_3_0: WireShapeAdapter = {
  paramsFromWire(rpc, wire) {
    const w = obj(wire);
    switch (rpc) {
      case "SendMessage":
      case "SendStreamingMessage": {
        const c = w["configuration"] === undefined ? undefined : obj(w["configuration"]);
        // proto3's bool has no "unset": a configuration on the wire means blocking only when it says so
        // (the proto's default, false); no configuration leaves the service's default (blocking).
        const configuration = c && defined({ ...pick(c, ["acceptedOutputModes"]), historyLength: int32(c["historyLength"], "configuration.historyLength"), blocking: c["blocking"] ?? false, pushNotificationConfig: c["pushNotification"] });
        return defined({ message: w["message"] === undefined ? undefined : messageFromWire(w["message"], "message"), configuration, metadata: w["metadata"] });
      }
      case "GetTask": {
        const [id] = parseName(String(w["name"] ?? ""), TASK_NAME, "name");
        return defined({ id, historyLength: int32(w["historyLength"], "historyLength") });
      }
      case "CancelTask":
      case "TaskSubscription": {
        const [id] = parseName(String(w["name"] ?? ""), TASK_NAME, "name");
        return { id };
      }
      case "CreateTaskPushNotificationConfig": {
        const [taskId] = parseName(String(w["parent"] ?? ""), TASK_NAME, "parent");
        const config = obj(obj(w["config"])["pushNotificationConfig"]);
        const id = config["id"] ?? w["configId"];
        return { taskId, pushNotificationConfig: defined({ ...pick(config, pushConfigKeys), id }) };
      }
      case "GetTaskPushNotificationConfig":
      case "DeleteTaskPushNotificationConfig": {
        const [id, configId] = parseName(String(w["name"] ?? ""), CONFIG_NAME, "name", true);
        return { id, pushNotificationConfigId: configId };
      }
      case "ListTaskPushNotificationConfig": {
        const [id] = parseName(String(w["parent"] ?? ""), TASK_NAME, "parent");
        return { id };
      }
      default:
        return w;
    }
  },

  paramsToWire(rpc, params) {
    const p = obj(params);
    switch (rpc) {
      case "SendMessage":
      case "SendStreamingMessage": {
        const c = p["configuration"] === undefined ? undefined : obj(p["configuration"]);
        // The JSON-RPC default (blocking unless `blocking: false`) said explicitly, since the wire's default is false.
        const configuration = c && defined({ ...pick(c, ["acceptedOutputModes", "historyLength"]), blocking: c["blocking"] ?? true, pushNotification: c["pushNotificationConfig"] });
        return defined({ message: p["message"] === undefined ? undefined : messageToWire(p["message"]), configuration, metadata: p["metadata"] });
      }
      case "GetTask":
        return defined({ name: taskName(p["id"]), historyLength: p["historyLength"] });
      case "CancelTask":
      case "TaskSubscription":
        return { name: taskName(p["id"]) };
      case "CreateTaskPushNotificationConfig": {
        const config = obj(p["pushNotificationConfig"]);
        return defined({ parent: taskName(p["taskId"]), configId: config["id"], config: { pushNotificationConfig: pick(config, pushConfigKeys) } });
      }
      case "GetTaskPushNotificationConfig":
      case "DeleteTaskPushNotificationConfig":
        // Without a config id JSON-RPC means the config whose id is the task id (what `set` gives a config
        // without one, as the 0.3 SDKs do); the resource name needs one: the task id.
        return { name: `${taskName(p["id"])}/pushNotificationConfigs/${String(p["pushNotificationConfigId"] ?? p["id"] ?? "")}` };
      case "ListTaskPushNotificationConfig":
        return { parent: taskName(p["id"]) };
      case "GetAgentCard":
        return {};
      default:
        return p;
    }
  },

  resultToWire(rpc, result) {
    switch (rpc) {
      case "SendMessage":
      case "SendStreamingMessage":
      case "TaskSubscription":
        return eventToWire(result);
      case "GetTask":
      case "CancelTask":
        return taskToWire(result);
      case "CreateTaskPushNotificationConfig":
      case "GetTaskPushNotificationConfig":
        return pushConfigResultToWire(result);
      case "ListTaskPushNotificationConfig":
        return { configs: list(result, pushConfigResultToWire) ?? [] };
      case "DeleteTaskPushNotificationConfig":
        return {};
      case "GetAgentCard":
        return cardToWire(result);
      default:
        return result;
    }
  },

  pointerToWire(rpc, pointer) {
    if (pointer === "") return pointer;
    const tokens = pointer.split("/").slice(1).map(unescapeToken);
    const wire = pointerTokensToWire(rpc, tokens);
    return wire.length === 0 ? "" : `/${wire.map(escapeToken).join("/")}`;
  },

  resultFromWire(rpc, wire) {
    switch (rpc) {
      case "SendMessage":
      case "SendStreamingMessage":
      case "TaskSubscription":
        return eventFromWire(wire);
      case "GetTask":
      case "CancelTask":
        return taskFromWire(wire);
      case "CreateTaskPushNotificationConfig":
      case "GetTaskPushNotificationConfig":
        return pushConfigResultFromWire(wire);
      case "ListTaskPushNotificationConfig":
        return list(obj(wire)["configs"], pushConfigResultFromWire) ?? [];
      case "DeleteTaskPushNotificationConfig":
        return null;
      case "GetAgentCard":
        return cardFromWire(wire);
      default:
        return wire;
    }
  },
};
