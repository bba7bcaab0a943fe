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
