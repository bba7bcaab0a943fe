// Type probes for the generated 0.3.0 models: every line marked @ts-expect-error must fail to compile,
// every other line must compile. Checked by test/product/compile.test.ts (tsc --noEmit, strict).
import {
  type A2AMethods,
  type A2ARequest,
  type Message,
  type Part,
  type ParamsOf,
  type ResultOf,
  type SendMessageResponse,
  type TaskState,
  type MessageSendParams,
  type Task,
  type StreamingMethodName,
  A2A_ERROR_CODES,
  A2A_METHODS,
  TaskStateValues,
  isTextPart,
  validateMessage,
} from "../../generated/a2a-0.3.0/index.js";
import type { AgentExecutor as Executor03, PushConfigStore as PushConfigStore03 } from "../../generated/a2a-0.3.0/server/core.js";
// No numbered duplicate types.
// @ts-expect-error Message1 does not exist
import type { Message1 } from "../../generated/a2a-0.3.0/models.js";
// @ts-expect-error Task2 does not exist
import type { Task2 } from "../../generated/a2a-0.3.0/models.js";

declare const part: Part;
declare const message: Message;
declare const request: A2ARequest;
declare const response: SendMessageResponse;
declare const unknownValue: unknown;

// Tagged unions narrow on their tag.
if (part.kind === "text") {
  const text: string = part.text;
} else if (part.kind === "file") {
  const file: object = part.file;
  // @ts-expect-error a file part has no text
  part.text;
} else {
  const data: { [k: string]: unknown } = part.data;
}
if (isTextPart(part)) {
  const text: string = part.text;
}

// Closed objects: a typo is an error, in a literal and on access.
const ok: Message = { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] };
// @ts-expect-error "partz" is not a property of Message
const typo: Message = { kind: "message", messageId: "m1", role: "user", parts: [], partz: [] };
// @ts-expect-error no property "contextID" (it is contextId)
message.contextID;
// Metadata declares additionalProperties, so it keeps its index signature.
const meta: unknown = message.metadata?.["anything"];
// @ts-expect-error role is a closed string union
const badRole: Message["role"] = "bot";

// On the request union, checking `method` narrows `params`.
if (request.method === "message/send") {
  const params: MessageSendParams = request.params;
} else if (request.method === "tasks/get") {
  const id: string = request.params.id;
  // @ts-expect-error tasks/get params have no message
  request.params.message;
}

// JSON-RPC responses narrow on "error" in r.
if ("error" in response) {
  const code: number = response.error.code;
  // @ts-expect-error an error response has no result
  response.result;
} else {
  const result: Task | Message = response.result;
}

// String-literal unions and `as const` value lists instead of enums.
const state: TaskState = TaskStateValues[0];
// @ts-expect-error not a task state
const badState: TaskState = "done";
const states: readonly TaskState[] = TaskStateValues;

// The method table.
const sendParams: A2AMethods["message/send"]["params"] = { message: ok };
const p2: ParamsOf<"tasks/get"> = { id: "t1" };
const r: ResultOf<"message/send"> = ok;
const streaming: StreamingMethodName = "message/stream";
// @ts-expect-error message/send does not stream
const notStreaming: StreamingMethodName = "message/send";
// @ts-expect-error not a method
type Nope = A2AMethods["message/sendd"];
const code: -32001 = A2A_ERROR_CODES.TaskNotFoundError;
const isStreaming: true = A2A_METHODS["message/stream"].streaming;

// Validators are type guards.
if (validateMessage(unknownValue)) {
  const parts: Part[] = unknownValue.parts;
}
// @ts-expect-error before validation it is unknown
unknownValue.parts;


// Task states an agent sets (issue 13 item 1): 0.3.0's spelling only.
const stateExecutor: Executor03 = {
  execute(_ctx, events) {
    events.status("auth-required");
    // @ts-expect-error a misspelled state does not compile
    events.status("complet");
    // @ts-expect-error 1.0's spelling is not 0.3.0's
    events.status("TASK_STATE_COMPLETED");
  },
};
// The 0.3.0 push config store keeps PushNotificationConfig (nested in TaskPushNotificationConfig on the wire).
declare const configs03: PushConfigStore03;
void configs03.set("task-1", { url: "https://example.com/hook", id: "c1", token: "t" });
// @ts-expect-error 0.3.0 stores the nested config, not the TaskPushNotificationConfig around it
void configs03.set("task-1", { taskId: "task-1", pushNotificationConfig: { url: "https://example.com/hook" } });
export {};
