import type protobuf from "protobufjs";
import { protobufjs } from "./protobufjs.js";
/**
 * Facts of the A2A 1.0 JSON-RPC binding that the proto does not state, from the specification text
 * (specification-1.0.1.md; a test checks them against its tables):
 * - §9.5 "Standard JSON-RPC Error Codes": code, name, standard message, description;
 * - §5.4 "Error Code Mappings" (JSON-RPC code of each A2A error) and §3.3.2 "A2A-Specific Errors"
 *   (its description). The text gives no standard message for these; the default message is the error's
 *   name in words ("TaskNotFoundError" → "Task not found", as in the §9.5 example).
 */
export interface JsonRpcErrorFact {
  name: string;
  code: number;
  message: string;
  description: string;
  /** An A2A-specific error (-32001 … -32099) rather than a JSON-RPC 2.0 one. */
  a2a: boolean;
}

const STANDARD: Array<[string, number, string, string]> = [
  ["JSONParseError", -32700, "Invalid JSON payload", "The server received invalid JSON"],
  ["InvalidRequestError", -32600, "Request payload validation error", "The JSON sent is not a valid Request object"],
  ["MethodNotFoundError", -32601, "Method not found", "The requested method does not exist or is not available"],
  ["InvalidParamsError", -32602, "Invalid parameters", "The method parameters are invalid"],
  ["InternalError", -32603, "Internal error", "An internal error occurred on the server"],
];

const A2A: Array<[string, number, string]> = [
  ["TaskNotFoundError", -32001, "The specified task ID does not correspond to an existing or accessible task. It might be invalid, expired, or already completed and purged."],
  [
    "TaskNotCancelableError",
    -32002,
    "An attempt was made to cancel a task that is not in a cancelable state (e.g., it has already reached a terminal state like `TASK_STATE_COMPLETED`, `TASK_STATE_FAILED`, `TASK_STATE_CANCELED`, `TASK_STATE_REJECTED`).",
  ],
  [
    "PushNotificationNotSupportedError",
    -32003,
    "Client attempted to use push notification features but the server agent does not support them (i.e., `AgentCard.capabilities.pushNotifications` is `false`).",
  ],
  ["UnsupportedOperationError", -32004, "The requested operation or a specific aspect of it is not supported by this server agent implementation."],
  [
    "ContentTypeNotSupportedError",
    -32005,
    "A Media Type provided in the request's message parts or implied for an artifact is not supported by the agent or the specific skill being invoked.",
  ],
  ["InvalidAgentResponseError", -32006, "An agent returned a response that does not conform to the specification for the current method."],
  ["ExtendedAgentCardNotConfiguredError", -32007, "The agent does not have an extended agent card configured when one is required for the requested operation."],
  [
    "ExtensionSupportRequiredError",
    -32008,
    "Server requested use of an extension marked as `required: true` in the Agent Card but the client did not declare support for it in the request.",
  ],
  ["VersionNotSupportedError", -32009, "The A2A protocol version specified in the request (via `A2A-Version` service parameter) is not supported by the agent."],
];

/** "TaskNotFoundError" → "Task not found". */
export function messageFromErrorName(name: string): string {
  const words = name
    .replace(/Error$/, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(" ")
    .map((w, i) => (i === 0 ? w : w.toLowerCase()));
  return words.join(" ");
}

/** Every error of the binding, the JSON-RPC 2.0 ones first, each group in code order as the text lists them. */
export const JSONRPC_ERRORS: readonly JsonRpcErrorFact[] = [
  ...STANDARD.map(([name, code, message, description]) => ({ name, code, message, description: `${description}.`, a2a: false })),
  ...A2A.map(([name, code, description]) => ({ name, code, message: messageFromErrorName(name), description, a2a: true })),
];

/**
 * What each rpc does (role → JSON-RPC method), so that one runtime serves every version. `list` (ListTasks)
 * is new in 1.0.
 */
export const ROLE_METHODS: ReadonlyArray<readonly [string, string]> = [
  ["send", "SendMessage"],
  ["stream", "SendStreamingMessage"],
  ["get", "GetTask"],
  ["list", "ListTasks"],
  ["cancel", "CancelTask"],
  ["resubscribe", "SubscribeToTask"],
  ["pushSet", "CreateTaskPushNotificationConfig"],
  ["pushGet", "GetTaskPushNotificationConfig"],
  ["pushList", "ListTaskPushNotificationConfigs"],
  ["pushDelete", "DeleteTaskPushNotificationConfig"],
  ["extendedCard", "GetExtendedAgentCard"],
];

// ---------------------------------------------------------------------------------------------------
// The HTTP+JSON binding: the rpcs' google.api.http rules (specification-1.0.1.md §11.3; the proto decides)

/** The JSON type of a request field sent as a query parameter (§11.5). */
export type QueryFieldType = "string" | "integer" | "int64" | "number" | "boolean" | "string[]";

/** One HTTP rule of an rpc, as the generated protocol.ts lists it (A2A_HTTP_ROUTES). */
export interface HttpRouteFact {
  /** The rpc (= the JSON-RPC method name in 1.0); the emitter puts the JSON-RPC method here (0.3.0: "message/send"). */
  method: string;
  /** The rpc's name where it differs from `method` (0.3.0: "SendMessage"): the key of the version's wire-shape translation. */
  rpc?: string;
  verb: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The path template as the proto writes it, e.g. "/tasks/{id=*}:cancel". */
  path: string;
  /** "*" (the body is the request), a request field, or absent (no body). */
  body?: string;
  /** For rules without a body: the request's scalar fields (JSON names) that may come as query parameters. */
  query?: Record<string, QueryFieldType>;
}

const VERBS = ["get", "post", "put", "patch", "delete"] as const;
const INTEGER = new Set(["int32", "uint32", "sint32", "fixed32", "sfixed32"]);
const INT64 = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);

/** A proto field name as its JSON name (ProtoJSON lowerCamelCase): task_id → taskId. */
function jsonName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Every google.api.http rule of the proto's services (each rpc's rule, then its additional_bindings), in
 * the proto's order. Reads the proto text only: the option values need no import resolved.
 */
export function httpRoutesOf(protoText: string): HttpRouteFact[] {
  const parsed = protobufjs().parse(protoText, new (protobufjs().Root)(), { keepCase: true, alternateCommentMode: true });
  const root = parsed.root;
  const services: protobuf.Service[] = [];
  const collect = (ns: protobuf.NamespaceBase): void => {
    for (const child of ns.nestedArray) {
      if (child instanceof protobufjs().Service) services.push(child);
      else if (child instanceof protobufjs().Namespace || child instanceof protobufjs().Type) collect(child);
    }
  };
  collect(root);
  const routes: HttpRouteFact[] = [];
  for (const service of services) {
    for (const method of service.methodsArray) {
      const rule = (method.parsedOptions ?? []).map((o: Record<string, unknown>) => o["(google.api.http)"]).find((r: unknown) => typeof r === "object" && r !== null) as Record<string, unknown> | undefined;
      if (!rule) continue;
      const request = lookupType(service, method.requestType);
      const rules = [rule, ...[rule.additional_bindings ?? []].flat()] as Array<Record<string, unknown>>;
      for (const r of rules) {
        const verb = VERBS.find((v) => typeof r[v] === "string");
        if (!verb) continue;
        const path = specTextPath(r[verb] as string);
        const body = typeof r.body === "string" && r.body !== "" ? r.body : undefined;
        const route: HttpRouteFact = { method: method.name, verb: verb.toUpperCase() as HttpRouteFact["verb"], path };
        if (body !== undefined) route.body = body;
        else if (request) {
          const inPath = new Set([...path.matchAll(/\{([^}=]+)/g)].map((m) => m[1] as string));
          const query: Record<string, QueryFieldType> = {};
          for (const field of request.fieldsArray) {
            if (inPath.has(field.name)) continue;
            const type = queryType(service, field);
            if (type) query[jsonName(field.name)] = type;
          }
          if (Object.keys(query).length > 0) route.query = query;
        }
        routes.push(route);
      }
    }
  }
  return [...routes, ...specTextRoutes(routes)];
}

/**
 * Path templates of a proto that its specification's text corrects: 0.3.0's CreateTaskPushNotificationConfig
 * rule says `/v1/{parent=task/*\/pushNotificationConfigs}` (a `parent` such as "task/1/pushNotificationConfigs",
 * while every other rule and the request's comment name a task `tasks/{id}`); specification-0.3.0.md §3.5.6
 * gives `POST /v1/tasks/{id}/pushNotificationConfigs`, which the official SDK serves and calls. The text decides.
 */
const SPEC_TEXT_PATHS: Readonly<Record<string, string>> = {
  "/v1/{parent=task/*/pushNotificationConfigs}": "/v1/{parent=tasks/*}/pushNotificationConfigs",
};

function specTextPath(path: string): string {
  return SPEC_TEXT_PATHS[path] ?? path;
}

/**
 * Where the specification's text names another verb for a path than the proto's rule, both are served:
 * §11.3.2 lists `POST /tasks/{id}:subscribe` while the proto's rule is `GET /tasks/{id=*}:subscribe`
 * (the official SDK serves both). The proto's rule comes first, so clients use it; the text's verb is
 * added for each of the rpc's paths, with the whole request as its (optional) body.
 */
function specTextRoutes(routes: readonly HttpRouteFact[]): HttpRouteFact[] {
  return routes
    .filter((r) => r.verb === "GET" && /:subscribe$/.test(r.path))
    .filter((r) => !routes.some((o) => o.verb === "POST" && o.path === r.path))
    .map((r) => ({ method: r.method, verb: "POST" as const, path: r.path, body: "*" }));
}

function lookupType(from: protobuf.ReflectionObject, name: string): protobuf.Type | undefined {
  try {
    const found = (from.parent as protobuf.NamespaceBase | null)?.lookup(name);
    return found instanceof protobufjs().Type ? found : undefined;
  } catch {
    return undefined;
  }
}

/** The query type of a field; undefined for message fields (§11.5: nested objects are not sent as query parameters). */
function queryType(from: protobuf.ReflectionObject, field: protobuf.Field): QueryFieldType | undefined {
  const t = field.type;
  let scalar: QueryFieldType | undefined;
  if (t === "string" || t === "bytes" || t === "google.protobuf.Timestamp" || t === "google.protobuf.Duration") scalar = "string";
  else if (INTEGER.has(t)) scalar = "integer";
  else if (INT64.has(t)) scalar = "int64";
  else if (t === "double" || t === "float") scalar = "number";
  else if (t === "bool") scalar = "boolean";
  else {
    let found: protobuf.ReflectionObject | null = null;
    try {
      found = (from.parent as protobuf.NamespaceBase | null)?.lookup(t) ?? null;
    } catch {
      found = null;
    }
    if (found instanceof protobufjs().Enum) scalar = "string";
  }
  if (scalar === undefined) return undefined;
  if (field.repeated) return scalar === "string" ? "string[]" : undefined;
  return scalar;
}

// ---------------------------------------------------------------------------------------------------
// §5.4 "Error Code Mappings": each error's gRPC status and HTTP status (a test checks them against the text)

export interface ErrorStatusFact {
  /** The gRPC status name (also google.rpc.Status.status in the HTTP+JSON error body, §11.6). */
  grpc: string;
  http: number;
}

/**
 * By error name. The A2A errors are the §5.4 table; the JSON-RPC 2.0 errors are not in it and take the
 * statuses the bindings give a bad request, an unknown method and an internal failure (§10.6's
 * INVALID_ARGUMENT example; google.rpc's canonical HTTP mapping).
 */
export const ERROR_STATUS: Readonly<Record<string, ErrorStatusFact>> = {
  JSONParseError: { grpc: "INVALID_ARGUMENT", http: 400 },
  InvalidRequestError: { grpc: "INVALID_ARGUMENT", http: 400 },
  MethodNotFoundError: { grpc: "UNIMPLEMENTED", http: 404 },
  InvalidParamsError: { grpc: "INVALID_ARGUMENT", http: 400 },
  InternalError: { grpc: "INTERNAL", http: 500 },
  TaskNotFoundError: { grpc: "NOT_FOUND", http: 404 },
  TaskNotCancelableError: { grpc: "FAILED_PRECONDITION", http: 400 },
  PushNotificationNotSupportedError: { grpc: "FAILED_PRECONDITION", http: 400 },
  UnsupportedOperationError: { grpc: "FAILED_PRECONDITION", http: 400 },
  ContentTypeNotSupportedError: { grpc: "INVALID_ARGUMENT", http: 400 },
  InvalidAgentResponseError: { grpc: "INTERNAL", http: 500 },
  ExtendedAgentCardNotConfiguredError: { grpc: "FAILED_PRECONDITION", http: 400 },
  // 0.3.0's name of the same error (specification-0.3.0.md §8.2); 0.3 has no status table, 1.0's applies.
  AuthenticatedExtendedCardNotConfiguredError: { grpc: "FAILED_PRECONDITION", http: 400 },
  ExtensionSupportRequiredError: { grpc: "FAILED_PRECONDITION", http: 400 },
  VersionNotSupportedError: { grpc: "FAILED_PRECONDITION", http: 400 },
};
