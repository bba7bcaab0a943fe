/**
 * The profile (src/ir/profile.ts), directly: the version facts the one runtime reads, derived from each
 * version's schema (plus its overlay or proto for the few a schema does not state). Each expectation is
 * a fact of the version's specification text, cited where it is one.
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../src/load/protocol.js";
import { pushConfigDefinition } from "../../src/ir/profile.js";
import { PROFILE_OBJECTS, TASK_CONTEXT_FIELDS, taskContextOf } from "../../src/runtime/profile.js";
import { ProtocolShapes } from "../../src/runtime/protocol-shapes.js";
import { bundledVersions } from "../../src/schema/load.js";

const v010 = bundledIR("0.1.0").profile;
const v030 = bundledIR("0.3.0").profile;
const v1 = bundledIR("1.0.1").profile;

describe("buildProfile", () => {
  it("names methods by role: 0.1.0's tasks/send family, 0.3.0's message/*, 1.0.1's rpc names (specification-1.0.1.md §9.4)", () => {
    expect(v010.methods).toMatchObject({ send: "tasks/send", stream: "tasks/sendSubscribe", get: "tasks/get" });
    expect(v010.methods.pushList).toBeUndefined();
    expect(v010.methods.extendedCard).toBeUndefined();
    expect(v030.methods).toMatchObject({ send: "message/send", stream: "message/stream", resubscribe: "tasks/resubscribe", extendedCard: "agent/getAuthenticatedExtendedCard" });
    expect(v030.methods.list).toBeUndefined();
    expect(v1.methods).toMatchObject({ send: "SendMessage", list: "ListTasks", resubscribe: "SubscribeToTask", extendedCard: "GetExtendedAgentCard" });
    // The params definition of each role comes from the request's `params`.
    expect(v1.params.send).toBe("SendMessageRequest");
    expect(v030.params.send).toBe("MessageSendParams");
  });

  it("task states and roles in the version's spelling, in schema order (1.0.1 §4.1.3, §4.1.5)", () => {
    expect(v010.taskStates).not.toContain("rejected");
    expect(v030.taskStates).toEqual(expect.arrayContaining(["rejected", "auth-required", "input-required"]));
    expect(v1.taskStates[0]).toBe("TASK_STATE_UNSPECIFIED");
    expect(v1.taskStates).toContain("TASK_STATE_AUTH_REQUIRED");
    expect(v1.roleValues).toEqual(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]);
  });

  it("1.0.1 wraps results told apart by presence: SendMessageResponse and StreamResponse (§3.1.1, §3.1.2)", () => {
    expect(v1.resultWrappers.send).toEqual({ Task: "task", Message: "message" });
    expect(v1.resultWrappers.stream).toEqual({ Task: "task", Message: "message", TaskStatusUpdateEvent: "statusUpdate", TaskArtifactUpdateEvent: "artifactUpdate" });
    expect(v030.resultWrappers).toEqual({});
    // DeleteTaskPushNotificationConfig answers google.protobuf.Empty: `{}` where 0.x answers null.
    expect(v1.emptyResults).toEqual(["pushDelete"]);
    expect(v030.emptyResults).toEqual([]);
  });

  it("stream results: 0.1.0 streams only updates; 0.3.0 and 1.0.1 a task or message too", () => {
    expect(v010.streamResults).toEqual(["TaskArtifactUpdateEvent", "TaskStatusUpdateEvent"]);
    expect(v030.streamResults).toEqual(["Message", "Task", "TaskArtifactUpdateEvent", "TaskStatusUpdateEvent"]);
  });

  it("error codes by name from the error definitions, and 1.0.1's version error (§3.2.6) and details (§11.6)", () => {
    expect(v030.errorCodes).toMatchObject({ TaskNotFound: -32001, TaskNotCancelable: -32002, InvalidParams: -32602 });
    expect(v1.errorCodes.VersionNotSupported).toBe(-32009);
    expect(v030.errorCodes.VersionNotSupported).toBeUndefined();
    expect(v1.errorDetails).toBe(true);
    expect(v030.errorDetails).toBe(false);
  });

  it("the facts a schema does not state come from the overlay (0.x) or the proto (1.0.1)", () => {
    expect(v010.wellKnownAgentCardPath).toBe("/.well-known/agent.json");
    expect(v030.wellKnownAgentCardPath).toBe("/.well-known/agent-card.json");
    expect(v1).toMatchObject({ versionHeader: "A2A-Version", protoJson: true, serverGeneratedTaskIds: true });
    expect(v030).toMatchObject({ protoJson: false, serverGeneratedTaskIds: false });
    expect(v030.versionHeader).toBeUndefined();
    // 0.1.0's schema leaves `jsonrpc` optional in its requests.
    expect(v010.jsonrpcRequired).toBe(false);
    expect(v1.jsonrpcRequired).toBe(true);
  });

  it("carries the shapes of the runtime's objects (the list in runtime/profile.ts) and of each role's params, nothing else", () => {
    for (const profile of [v010, v030, v1]) {
      const allowed = new Set<string>([...PROFILE_OBJECTS, ...Object.values(profile.params)]);
      expect(Object.keys(profile.objects).filter((name) => !allowed.has(name))).toEqual([]);
      expect(profile.objects.Task?.properties).toContain("status");
    }
    expect(v010.objects.Task?.properties).toContain("sessionId");
    expect(v030.objects.Task?.consts).toEqual({ kind: "task" });
    expect(v1.objects.Task?.consts).toEqual({});
    expect(v1.objects.TaskPushNotificationConfig?.properties).toContain("url");
  });
});

describe("sendFields: where the send params carry the context, history length, push config and blocking flag", () => {
  it("0.1.0 (TaskSendParams): beside the message, and every send blocks", () => {
    // specification-0.1.0.md tasks/send: TaskSendParams { id, sessionId, message, pushNotification, historyLength }.
    expect(v010.sendFields).toEqual({ contextId: "/sessionId", historyLength: "/historyLength", pushConfig: "/pushNotification" });
  });

  it("0.3.0 (MessageSendParams): the context on the message, the rest in MessageSendConfiguration, blocking: false to return at once", () => {
    // specification-0.3.0.md §7.1.1 MessageSendConfiguration { acceptedOutputModes, historyLength, pushNotificationConfig, blocking }.
    expect(v030.sendFields).toEqual({
      contextId: "/message/contextId",
      historyLength: "/configuration/historyLength",
      acceptedOutputModes: "/configuration/acceptedOutputModes",
      pushConfig: "/configuration/pushNotificationConfig",
      nonBlocking: { pointer: "/configuration/blocking", value: false },
    });
  });

  it("1.0.1 (SendMessageRequest): taskPushNotificationConfig, and returnImmediately: true to return at once (§3.2.2)", () => {
    expect(v1.sendFields).toEqual({
      contextId: "/message/contextId",
      historyLength: "/configuration/historyLength",
      acceptedOutputModes: "/configuration/acceptedOutputModes",
      pushConfig: "/configuration/taskPushNotificationConfig",
      nonBlocking: { pointer: "/configuration/returnImmediately", value: true },
    });
  });
});

describe("taskFields: where the task and push-config params name the task and the config", () => {
  it("0.1.0: `id` everywhere (TaskIdParams, TaskQueryParams, TaskPushNotificationConfig { id, pushNotificationConfig })", () => {
    // specification-0.1.0.md tasks/pushNotification/set: TaskPushNotificationConfig { id, pushNotificationConfig }.
    expect(v010.taskFields).toEqual({
      taskId: { get: "id", cancel: "id", resubscribe: "id", pushSet: "id", pushGet: "id" },
      historyLength: "historyLength",
      pushConfig: "pushNotificationConfig",
    });
  });

  it("0.3.0: `taskId` in the set params, `id` in the others; the get params are a union and both members count", () => {
    // specification-0.3.0.md §7.5–§7.8: TaskPushNotificationConfig { taskId, pushNotificationConfig },
    // GetTaskPushNotificationConfigParams { id, pushNotificationConfigId? } (or TaskIdParams), DeleteTaskPushNotificationConfigParams.
    expect(v030.taskFields).toEqual({
      taskId: { get: "id", cancel: "id", resubscribe: "id", pushSet: "taskId", pushGet: "id", pushList: "id", pushDelete: "id" },
      historyLength: "historyLength",
      pushConfig: "pushNotificationConfig",
      pushConfigId: "pushNotificationConfigId",
    });
  });

  it("1.0.1: the push-config requests name the task `taskId` and the config `id`; the set request is the config", () => {
    // specification-1.0.1.md §3.1.7–§3.1.10 (GetTaskPushNotificationConfigRequest { tenant, taskId, id }).
    expect(v1.taskFields).toEqual({
      taskId: { get: "id", cancel: "id", resubscribe: "id", pushSet: "taskId", pushGet: "taskId", pushList: "taskId", pushDelete: "taskId" },
      historyLength: "historyLength",
      pushConfigId: "id",
    });
  });

  it("ProtocolShapes reads each version's params by them, never another version's field", () => {
    const s010 = new ProtocolShapes(v010);
    const s030 = new ProtocolShapes(v030);
    const s1 = new ProtocolShapes(v1);
    expect(s010.paramsTaskId("pushSet", { id: "t", pushNotificationConfig: { url: "https://x" } })).toBe("t");
    expect(s030.paramsTaskId("pushSet", { taskId: "t", pushNotificationConfig: { url: "https://x" } })).toBe("t");
    expect(s030.paramsTaskId("pushSet", { id: "t" })).toBeUndefined();
    expect(s1.paramsTaskId("pushGet", { taskId: "t", id: "c" })).toBe("t");
    expect(s1.paramsTaskId("get", { taskId: "t", id: "c" })).toBe("c");
    expect(s030.pushConfigIdOf({ id: "t", pushNotificationConfigId: "c" })).toBe("c");
    expect(s030.pushConfigIdOf({ id: "t" })).toBeUndefined();
    expect(s1.pushConfigIdOf({ taskId: "t", id: "c" })).toBe("c");
    expect(s1.pushConfigIdOf({ taskId: "t", pushNotificationConfigId: "c" })).toBeUndefined();
    expect(s030.pushConfigOf({ taskId: "t", pushNotificationConfig: { url: "https://x" } })).toEqual({ url: "https://x" });
    expect(s1.pushConfigOf({ tenant: "acme", taskId: "t", id: "c", url: "https://x" })).toEqual({ id: "c", url: "https://x" });
    expect(s1.nestedPushConfigOf({ taskId: "t", pushNotificationConfig: { url: "https://x" } })).toBeUndefined();
    expect(s030.historyLengthOf({ id: "t", historyLength: 2 })).toBe(2);
    expect(s030.historyLengthOf({ id: "t", historyLength: "2" })).toBeUndefined();
  });
});

describe("ProtocolShapes reads and writes a send where the profile says", () => {
  it("reads each version's send params into the same parts", () => {
    const message = { role: "user", parts: [] };
    const v0 = new ProtocolShapes(v010).sendParams({ id: "t1", sessionId: "s1", message, historyLength: 2, pushNotification: { url: "https://x" } });
    expect(v0).toMatchObject({ taskId: "t1", contextId: "s1", contextPointer: "/params/sessionId", historyLength: 2, blocking: true, pushConfig: { url: "https://x" } });
    const v3 = new ProtocolShapes(v030).sendParams({ message: { ...message, contextId: "c1" }, configuration: { blocking: false, historyLength: 1, acceptedOutputModes: ["text/plain", 3] } });
    expect(v3).toMatchObject({ contextId: "c1", contextPointer: "/params/message/contextId", historyLength: 1, blocking: false, acceptedOutputModes: ["text/plain"] });
    // A field of another version is not read: 0.3.0 has no returnImmediately, 1.0.1 no blocking.
    expect(new ProtocolShapes(v030).sendParams({ message, configuration: { returnImmediately: true } }).blocking).toBe(true);
    expect(new ProtocolShapes(v1).sendParams({ message, configuration: { blocking: false } }).blocking).toBe(true);
    expect(new ProtocolShapes(v1).sendParams({ message, configuration: { returnImmediately: true, taskPushNotificationConfig: { url: "https://y" } } })).toMatchObject({
      blocking: false,
      pushConfig: { url: "https://y" },
    });
  });

  it("writes a non-blocking send in the version's field: blocking: false (0.3.0), returnImmediately: true (1.0.1)", () => {
    const message = { role: "user", parts: [] };
    expect(new ProtocolShapes(v030).sendParamsFor(message, { blocking: false, historyLength: 3 })["configuration"]).toEqual({
      acceptedOutputModes: ["text/plain"],
      blocking: false,
      historyLength: 3,
    });
    expect(new ProtocolShapes(v1).sendParamsFor(message, { blocking: false })["configuration"]).toEqual({ acceptedOutputModes: ["text/plain"], returnImmediately: true });
    expect(new ProtocolShapes(v1).sendParamsFor(message, { blocking: true })["configuration"]).toEqual({ acceptedOutputModes: ["text/plain"], returnImmediately: false });
    const v0 = new ProtocolShapes(v010).sendParamsFor(message, { taskId: "t1", contextId: "s1", historyLength: 2 });
    expect(v0).toEqual({ id: "t1", message, sessionId: "s1", historyLength: 2 });
  });
});

describe("contextField: the property that names a task's conversation, taken from the profile", () => {
  it("0.1.0's Task has sessionId, 0.2+'s contextId (specification-0.3.0.md §6.1 Task.contextId), each one of TASK_CONTEXT_FIELDS", () => {
    expect(v010.contextField).toBe("sessionId");
    expect(v030.contextField).toBe("contextId");
    expect(v1.contextField).toBe("contextId");
    for (const version of bundledVersions()) {
      const field = bundledIR(version).profile.contextField;
      expect(TASK_CONTEXT_FIELDS as readonly (string | undefined)[], version).toContain(field);
    }
  });

  it("the runtime writes the context in the profile's field, on the task, the message and the events that have it", () => {
    // A profile whose context field is a third spelling: nothing in the runtime may write "contextId" by itself.
    const shape = (...properties: string[]) => ({ properties, required: [], consts: {} });
    const profile = {
      ...v030,
      contextField: "conversation",
      objects: {
        ...v030.objects,
        Task: shape("id", "conversation", "status"),
        Message: shape("role", "parts", "taskId", "conversation"),
        TaskStatusUpdateEvent: shape("taskId", "conversation", "status", "final"),
        TaskArtifactUpdateEvent: shape("taskId", "artifact"),
      },
    };
    const shapes = new ProtocolShapes(profile);
    const status = { state: "working" };
    expect(shapes.task({ id: "t", contextId: "c", status })).toEqual({ id: "t", conversation: "c", status });
    expect(shapes.stamp({ role: "user", parts: [] }, "t", "c")).toEqual({ role: "user", parts: [], taskId: "t", conversation: "c" });
    expect(shapes.statusEvent({ taskId: "t", contextId: "c", status, final: false })).toEqual({ taskId: "t", conversation: "c", status, final: false });
    expect(shapes.artifactEvent({ taskId: "t", contextId: "c", artifact: {} })).not.toHaveProperty("conversation");
    expect(shapes.artifactEvent({ taskId: "t", contextId: "c", artifact: {} })).not.toHaveProperty("contextId");
    // A profile without a context field (a schema whose Task has none) writes no context anywhere.
    const none = new ProtocolShapes({ ...v030, contextField: undefined });
    expect(none.task({ id: "t", contextId: "c", status })).not.toHaveProperty("contextId");
    expect(none.stamp({ role: "user", parts: [] }, "t", "c")).not.toHaveProperty("contextId");
  });

  it("code without a profile (the stores) reads a task's context in any version's field", () => {
    expect(taskContextOf({ id: "t", contextId: "c" })).toBe("c");
    expect(taskContextOf({ id: "t", sessionId: "s" })).toBe("s");
    expect(taskContextOf({ id: "t" })).toBeUndefined();
    expect(taskContextOf({ id: "t", contextId: 3 })).toBeUndefined();
  });
});

describe("pushConfigDefinition: the model a push config store keeps", () => {
  it("0.x keeps PushNotificationConfig (nested in the task's config), 1.0.1 the flat TaskPushNotificationConfig (specification-0.3.0.md §6.8; specification-1.0.1.md §3.1.7)", () => {
    expect(pushConfigDefinition(v010)).toBe("PushNotificationConfig");
    expect(pushConfigDefinition(v030)).toBe("PushNotificationConfig");
    expect(pushConfigDefinition(v1)).toBe("TaskPushNotificationConfig");
    const { PushNotificationConfig: _p, TaskPushNotificationConfig: _t, ...objects } = v030.objects;
    expect(pushConfigDefinition({ ...v030, objects })).toBeUndefined();
  });
});
