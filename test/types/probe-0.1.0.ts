// Type probes for the generated 0.1.0 models (see probe-0.3.0.ts). 0.1.0 tells parts apart by `type`,
// and its responses are one object with optional result and error, typed here as the JSON-RPC union.
import {
  type A2ARequest,
  type Part,
  type SendTaskResponse,
  type Task,
  type TaskSendParams,
  type TaskState,
  type ResultOf,
  type ParamsOf,
  TaskStateValues,
  isTextPart,
  SPEC_VERSION,
  DISCRIMINATOR_FIELD,
  WELL_KNOWN_AGENT_CARD_PATH,
} from "../../generated/a2a-0.1.0/index.js";
import type { AgentExecutor as Executor010 } from "../../generated/a2a-0.1.0/server/core.js";
// @ts-expect-error no numbered duplicates
import type { Message1 } from "../../generated/a2a-0.1.0/models.js";

declare const part: Part;
declare const request: A2ARequest;
declare const response: SendTaskResponse;

if (part.type === "text") {
  const text: string = part.text;
} else if (part.type === "file") {
  // @ts-expect-error a file part has no text
  part.text;
}
if (isTextPart(part)) {
  const text: string = part.text;
}
// @ts-expect-error 0.1.0 parts use `type`, not `kind`
const newPart: Part = { kind: "text", text: "x" };

if (request.method === "tasks/send") {
  const params: TaskSendParams = request.params;
  const sessionId: string | undefined = request.params.sessionId;
}
if ("error" in response) {
  const code: number = response.error.code;
  // @ts-expect-error an error response has no result
  response.result;
} else {
  const task: Task = response.result;
}
const state: TaskState = TaskStateValues[0];
// @ts-expect-error 0.1.0 has no "rejected" state
const rejected: TaskState = "rejected";
// @ts-expect-error typo in a closed object
const params: TaskSendParams = { id: "t", message: { role: "user", parts: [] }, sesionId: "s" };
const result: ResultOf<"tasks/send"> = { id: "t", status: { state: "working" } };
const streamParams: ParamsOf<"tasks/sendSubscribe"> = { id: "t", message: { role: "user", parts: [] } };
const version: "0.1.0" = SPEC_VERSION;
const field: "type" = DISCRIMINATOR_FIELD;
const path: "/.well-known/agent.json" = WELL_KNOWN_AGENT_CARD_PATH;

// Task states an agent sets (issue 13 item 1): 0.1.0 has no rejected state.
const stateExecutor: Executor010 = {
  execute(_ctx, events) {
    events.status("input-required", "more?");
    // @ts-expect-error 0.1.0 has no "rejected" state
    events.status("rejected");
  },
};
export {};
