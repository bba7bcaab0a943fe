import { describe, expect, it } from "vitest";
import { deriveMapping } from "../../src/compat/derive.js";
import { TABLE_0_3_TO_1_0, type CompatTable } from "../../src/compat/table.js";
import { CodegenError } from "../../src/errors.js";
import { VersionConverter, type Loss } from "../../src/runtime/compat/converter.js";
import { derived, validator } from "../support/compat/mapping.js";

/**
 * The 0.3.0 ↔ 1.0.1 mapping derived from the IR diff and the table: what it pairs, and conversions of
 * the objects the specification describes, checked against both versions' schemas.
 */

const { compat, primary, mapping } = derived();

function convert(losses: Loss[] = []): VersionConverter {
  return new VersionConverter(mapping, { onLoss: (l) => losses.push(l) });
}

describe("the derived 0.3.0 ↔ 1.0.1 mapping", () => {
  it("pairs every 0.3 method with its 1.0 method by role (as the IR diff does); ListTasks is 1.0 only", () => {
    expect(mapping.methods.map((m) => [m.role, m.compat, m.primary])).toEqual([
      ["cancel", "tasks/cancel", "CancelTask"],
      ["pushSet", "tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"],
      ["pushDelete", "tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"],
      ["extendedCard", "agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"],
      ["get", "tasks/get", "GetTask"],
      ["pushGet", "tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"],
      ["pushList", "tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"],
      ["send", "message/send", "SendMessage"],
      ["stream", "message/stream", "SendStreamingMessage"],
      ["resubscribe", "tasks/resubscribe", "SubscribeToTask"],
    ]);
    expect(mapping.primaryOnly).toEqual(["ListTasks"]);
    expect(mapping.compatOnly).toEqual([]);
    expect(mapping.methods.filter((m) => m.streaming).map((m) => m.primary)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
  });

  it("is deterministic: the same IRs give the same data", () => {
    expect(JSON.stringify(deriveMapping(compat, primary, TABLE_0_3_TO_1_0))).toBe(JSON.stringify(mapping));
  });

  it("send params: blocking ↔ returnImmediately inverted, the push config renamed, kind tags and role spellings (1.0.1 §3.2.1, §3.2.2)", () => {
    const params03 = {
      message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }], contextId: "c1" },
      configuration: { acceptedOutputModes: ["text/plain"], blocking: true, historyLength: 2, pushNotificationConfig: { url: "https://hook.example/a", token: "t" } },
      metadata: { trace: "x" },
    };
    const losses: Loss[] = [];
    const up = convert(losses).params("message/send", "toPrimary", params03);
    expect(up).toEqual({
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }], contextId: "c1" },
      configuration: { acceptedOutputModes: ["text/plain"], returnImmediately: false, historyLength: 2, taskPushNotificationConfig: { url: "https://hook.example/a", token: "t" } },
      metadata: { trace: "x" },
    });
    expect(losses).toEqual([]);
    expect(validator("1.0.1", "SendMessageRequest")(up)).toBe(true);
    expect(convert().params("SendMessage", "toCompat", up)).toEqual(params03);
  });

  it("stream events: bare kind-tagged events ↔ StreamResponse wrappers; `final` recomputed from the state (1.0.1 §3.2.3, §4.2.1)", () => {
    const interrupted = { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "input-required" }, final: true };
    const up = convert().result("message/stream", "toPrimary", interrupted);
    expect(up).toEqual({ statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_INPUT_REQUIRED" } } });
    expect(convert().result("SendStreamingMessage", "toCompat", up)).toEqual(interrupted);
    const working = convert().result("SubscribeToTask", "toCompat", { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } });
    expect(working).toEqual({ kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "working" }, final: false });
    const artifact = { artifactUpdate: { taskId: "t1", contextId: "c1", artifact: { artifactId: "a1", parts: [{ url: "https://x/f.png", mediaType: "image/png", filename: "f.png" }] }, append: true } };
    const down = convert().result("SendStreamingMessage", "toCompat", artifact);
    expect(down).toEqual({
      kind: "artifact-update",
      taskId: "t1",
      contextId: "c1",
      artifact: { artifactId: "a1", parts: [{ kind: "file", file: { uri: "https://x/f.png", mimeType: "image/png", name: "f.png" } }] },
      append: true,
    });
    expect(validator("0.3.0", "TaskArtifactUpdateEvent")(down)).toBe(true);
    expect(convert().result("message/stream", "toPrimary", down)).toEqual(artifact);
  });

  it("send results: a bare Task or Message ↔ { task } / { message } (1.0.1 §3.1.1)", () => {
    const task = { kind: "task", id: "t1", contextId: "c1", status: { state: "completed", timestamp: "2026-01-01T00:00:00Z" } };
    expect(convert().result("message/send", "toPrimary", task)).toEqual({ task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00Z" } } });
    const reply = { message: { messageId: "r", role: "ROLE_AGENT", parts: [{ data: { a: 1 } }] } };
    expect(convert().result("SendMessage", "toCompat", reply)).toEqual({ kind: "message", messageId: "r", role: "agent", parts: [{ kind: "data", data: { a: 1 } }] });
  });

  it("push configs: 0.3's nested config ↔ 1.0's flat one; schemes ↔ scheme (1.0.1 §4.3.1, §4.3.2)", () => {
    const set03 = { taskId: "t1", pushNotificationConfig: { id: "p1", url: "https://hook.example/a", token: "tok", authentication: { schemes: ["Bearer"], credentials: "c" } } };
    const flat = { taskId: "t1", id: "p1", url: "https://hook.example/a", token: "tok", authentication: { scheme: "Bearer", credentials: "c" } };
    expect(convert().params("tasks/pushNotificationConfig/set", "toPrimary", set03)).toEqual(flat);
    expect(validator("1.0.1", "TaskPushNotificationConfig")(flat)).toBe(true);
    expect(convert().result("CreateTaskPushNotificationConfig", "toCompat", flat)).toEqual(set03);
    // A list result: [] ↔ {} (ProtoJSON leaves the empty list out), [c] ↔ { configs: [c] }.
    expect(convert().result("ListTaskPushNotificationConfigs", "toCompat", {})).toEqual([]);
    expect(convert().result("tasks/pushNotificationConfig/list", "toPrimary", [])).toEqual({});
    expect(convert().result("tasks/pushNotificationConfig/list", "toPrimary", [set03])).toEqual({ configs: [flat] });
    // Delete: null ↔ {} (google.protobuf.Empty).
    expect(convert().result("tasks/pushNotificationConfig/delete", "toPrimary", null)).toEqual({});
    expect(convert().result("DeleteTaskPushNotificationConfig", "toCompat", {})).toBeNull();
  });

  it("push config get by task id only: the config id defaults to the task id, as the 0.3 SDK's default config", () => {
    const losses: Loss[] = [];
    expect(convert(losses).params("tasks/pushNotificationConfig/get", "toPrimary", { id: "t1" })).toEqual({ taskId: "t1", id: "t1" });
    expect(losses.map((l) => [l.reason, l.field])).toEqual([["defaulted", "pushNotificationConfigId"]]);
    expect(convert().params("GetTaskPushNotificationConfig", "toCompat", { taskId: "t1", id: "p1", tenant: "x" })).toEqual({ id: "t1", pushNotificationConfigId: "p1" });
  });

  it("the extended card: 0.3 sends no params; 1.0's (the tenant) are left out and reported", () => {
    expect(convert().params("agent/getAuthenticatedExtendedCard", "toPrimary", undefined)).toEqual({});
    const losses: Loss[] = [];
    expect(convert(losses).params("GetExtendedAgentCard", "toCompat", { tenant: "t" })).toBeUndefined();
    expect(losses.map((l) => [l.source, l.target, l.field, l.reason])).toEqual([["GetExtendedAgentCardRequest", "(no params)", "tenant", "no-field"]]);
    expect(losses.every((l) => mapping.lossy.some((x) => x.source === l.source && x.target === l.target && x.field === l.field))).toBe(true);
  });

  it("errors: codes kept, 0.3 data ↔ one google.protobuf.Value detail (1.0.1 §3.3.2, §9.5)", () => {
    const error03 = { code: -32001, message: "Task not found", data: { taskId: "t9" } };
    const up = convert().error("toPrimary", error03);
    expect(up).toEqual({ code: -32001, message: "Task not found", data: [{ "@type": "type.googleapis.com/google.protobuf.Value", value: { taskId: "t9" } }] });
    expect(validator("1.0.1", "TaskNotFoundError")(up)).toBe(true);
    expect(convert().error("toCompat", up)).toEqual(error03);
    const v1 = { code: -32009, message: "Version not supported", data: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "VERSION_NOT_SUPPORTED" }] };
    expect(convert().error("toCompat", v1)).toEqual(v1);
  });

  it("objects outside a call by definition: a stored Task for a 0.3 push notification (0.3 §9.5: the Task is the payload)", () => {
    const stored = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" }, artifacts: [{ artifactId: "a", parts: [{ text: "done" }] }] };
    const payload = convert().object("Task", "toCompat", stored);
    expect(payload).toEqual({ kind: "task", id: "t1", contextId: "c1", status: { state: "completed" }, artifacts: [{ artifactId: "a", parts: [{ kind: "text", text: "done" }] }] });
    expect(validator("0.3.0", "Task")(payload)).toBe(true);
    expect(convert().object("Task", "toPrimary", payload)).toEqual(stored);
    expect(() => convert().object("TaskIdParams", "toPrimary", { id: "t" })).toThrow("it converts to several: TaskIdParams~CancelTaskRequest, TaskIdParams~SubscribeToTaskRequest");
    expect(() => convert().object("ListTasksRequest", "toCompat", {})).toThrow("no plan converts it");
  });

  it("a table entry that names a field or definition the schemas do not have is an error naming it", () => {
    const stale: CompatTable = { ...TABLE_0_3_TO_1_0, renames: [...TABLE_0_3_TO_1_0.renames, { compat: "MessageSendConfiguration", primary: "SendMessageConfiguration", field: "blockng", to: "returnImmediately", why: "typo" }] };
    expect(() => deriveMapping(compat, primary, stale)).toThrow(CodegenError);
    expect(() => deriveMapping(compat, primary, stale)).toThrow('compat table: 0.3.0 MessageSendConfiguration has no field "blockng"');
    const noUrl: CompatTable = { ...TABLE_0_3_TO_1_0, card: { ...TABLE_0_3_TO_1_0.card!, fields: TABLE_0_3_TO_1_0.card!.fields.filter((f) => f.field !== "url") } };
    expect(() => deriveMapping(compat, primary, noUrl)).toThrow("the dual card gives no url, which 0.3.0 clients require");
    expect(() => deriveMapping(primary, compat, TABLE_0_3_TO_1_0)).toThrow("the compat table maps 0.3.0 to 1.0.1, not 1.0.1 to 0.3.0");
  });
});
