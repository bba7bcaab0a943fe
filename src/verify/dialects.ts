/**
 * What differs between the versions verify checks, for its probes: method names, response definitions, the
 * shape of verify's own message, where a task is in a result, task states. 1.0.1's JSON-RPC and gRPC share
 * the proto's names; 0.3.0's JSON-RPC has its own (specification-0.3.0.md §3.5.6, §7).
 */
import { CHECKS, CHECKS_030, type CheckDeclaration, type CheckedVersion, type OwnerChecks } from "./checks.js";
import { isObject, PROBE_TEXT, VERIFY_MARK, type Json } from "./schemas.js";

type Call = "send" | "stream" | "get" | "cancel" | "subscribe";

export interface Dialect {
  readonly version: CheckedVersion;
  /** JSON-RPC method of each call. */
  readonly methods: Readonly<Record<Call, string>>;
  /** The schema definition of each call's JSON-RPC response (success or error). */
  readonly responses: Readonly<Record<Call, string>>;
  /** The JSON-RPC checks of the version (version negotiation only from 1.0). */
  readonly rpcChecks: {
    readonly send: CheckDeclaration;
    readonly get: CheckDeclaration;
    readonly cancel: CheckDeclaration;
    readonly stream: CheckDeclaration;
    readonly notFound: CheckDeclaration;
    readonly cancelNotFound: CheckDeclaration;
    readonly subscribeNotFound: CheckDeclaration;
    readonly parseError: CheckDeclaration;
    readonly invalidRequest: CheckDeclaration;
    readonly methodNotFound: CheckDeclaration;
    readonly invalidParams: CheckDeclaration;
    readonly version?: CheckDeclaration;
    readonly owner: OwnerChecks;
  };
  /** verify's own message, marked in its metadata and text. */
  message(): Json;
  /** The send configuration that asks not to wait for the task to finish. */
  readonly nonBlocking: Json;
  /** The task a send result or stream event carries, if any (a status update as `{ id, status }`). */
  taskOf(result: unknown): Json | undefined;
  /** The state of a task, in the version's spelling. */
  stateOf(task: Json): string | undefined;
  readonly terminal: ReadonlySet<string>;
  readonly canceled: string;
}

const messageId = () => `${VERIFY_MARK}-${Math.random().toString(36).slice(2)}`;

export const DIALECT_1_0: Dialect = {
  version: "1.0.1",
  methods: { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask", subscribe: "SubscribeToTask" },
  responses: { send: "SendMessageRpcResponse", stream: "SendStreamingMessageRpcResponse", get: "GetTaskRpcResponse", cancel: "CancelTaskRpcResponse", subscribe: "SubscribeToTaskRpcResponse" },
  rpcChecks: {
    send: CHECKS.rpcSend,
    get: CHECKS.rpcGet,
    cancel: CHECKS.rpcCancel,
    stream: CHECKS.rpcStream,
    notFound: CHECKS.rpcTaskNotFound,
    cancelNotFound: CHECKS.rpcCancelNotFound,
    subscribeNotFound: CHECKS.rpcSubscribeNotFound,
    parseError: CHECKS.rpcParseError,
    invalidRequest: CHECKS.rpcInvalidRequest,
    methodNotFound: CHECKS.rpcMethodNotFound,
    invalidParams: CHECKS.rpcInvalidParams,
    version: CHECKS.rpcVersion,
    owner: CHECKS.rpcOwner,
  },
  message: () => ({ messageId: messageId(), role: "ROLE_USER", parts: [{ text: PROBE_TEXT }], metadata: { [VERIFY_MARK]: true } }),
  nonBlocking: { returnImmediately: true },
  taskOf(result) {
    if (!isObject(result)) return undefined;
    if (isObject(result["task"])) return result["task"];
    const update = result["statusUpdate"];
    return isObject(update) && isObject(update["status"]) ? { id: update["taskId"], status: update["status"] } : undefined;
  },
  stateOf: (task) => (isObject(task["status"]) && typeof task["status"]["state"] === "string" ? task["status"]["state"] : undefined),
  terminal: new Set(["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"]),
  canceled: "TASK_STATE_CANCELED",
};

export const DIALECT_0_3: Dialect = {
  version: "0.3.0",
  methods: { send: "message/send", stream: "message/stream", get: "tasks/get", cancel: "tasks/cancel", subscribe: "tasks/resubscribe" },
  responses: { send: "SendMessageResponse", stream: "SendStreamingMessageResponse", get: "GetTaskResponse", cancel: "CancelTaskResponse", subscribe: "SendStreamingMessageResponse" },
  rpcChecks: {
    send: CHECKS_030.rpcSend,
    get: CHECKS_030.rpcGet,
    cancel: CHECKS_030.rpcCancel,
    stream: CHECKS_030.rpcStream,
    notFound: CHECKS_030.rpcTaskNotFound,
    cancelNotFound: CHECKS_030.rpcCancelNotFound,
    subscribeNotFound: CHECKS_030.rpcSubscribeNotFound,
    parseError: CHECKS_030.rpcParseError,
    invalidRequest: CHECKS_030.rpcInvalidRequest,
    methodNotFound: CHECKS_030.rpcMethodNotFound,
    invalidParams: CHECKS_030.rpcInvalidParams,
    owner: CHECKS_030.rpcOwner,
  },
  message: () => ({ kind: "message", messageId: messageId(), role: "user", parts: [{ kind: "text", text: PROBE_TEXT }], metadata: { [VERIFY_MARK]: true } }),
  nonBlocking: { blocking: false },
  taskOf(result) {
    if (!isObject(result)) return undefined;
    if (result["kind"] === "task") return result;
    return result["kind"] === "status-update" && isObject(result["status"]) ? { id: result["taskId"], status: result["status"] } : undefined;
  },
  stateOf: (task) => (isObject(task["status"]) && typeof task["status"]["state"] === "string" ? task["status"]["state"] : undefined),
  terminal: new Set(["completed", "failed", "canceled", "rejected"]),
  canceled: "canceled",
};
