// Type probes for the generated 0.2.5 models (see probe-0.3.0.ts).
import {
  type A2ARequest,
  type GetTaskResponse,
  type Message,
  type Part,
  type Task,
  type TaskState,
  type TaskIdParams,
  type ParamsOf,
  TaskStateValues,
  validateTask,
} from "../../generated/a2a-0.2.5/index.js";
// @ts-expect-error no numbered duplicates
import type { Message1 } from "../../generated/a2a-0.2.5/models.js";

declare const part: Part;
declare const request: A2ARequest;
declare const response: GetTaskResponse;
declare const value: unknown;

if (part.kind === "data") {
  const data: { [k: string]: unknown } = part.data;
  // @ts-expect-error a data part has no text
  part.text;
}
// @ts-expect-error unknown part kind
const badPart: Part = { kind: "audio", text: "x" };
// @ts-expect-error 0.2.5 parts use `kind`, not 0.1.0's `type`
const oldPart: Part = { type: "text", text: "x" };

if (request.method === "tasks/pushNotificationConfig/delete") {
  const configId: string = request.params.pushNotificationConfigId;
}
if (request.method === "tasks/cancel") {
  const params: TaskIdParams = request.params;
}
if ("error" in response) {
  const message: string = response.error.message;
} else {
  const task: Task = response.result;
}
// @ts-expect-error typo in a closed object
const m: Message = { kind: "message", messageId: "1", role: "agent", parts: [], taskID: "x" };
const s: TaskState = TaskStateValues[TaskStateValues.length - 1] ?? "unknown";
// @ts-expect-error not a state of 0.2.5
const s2: TaskState = "paused";
const listParams: ParamsOf<"tasks/pushNotificationConfig/list"> = { id: "t" };
if (validateTask(value)) {
  const id: string = value.id;
}
export {};
