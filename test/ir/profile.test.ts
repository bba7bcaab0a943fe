/**
 * The profile (src/ir/profile.ts), directly: the version facts the one runtime reads, derived from each
 * version's schema (plus its overlay or proto for the few a schema does not state). Each expectation is
 * a fact of the version's specification text, cited where it is one.
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../src/diff/load.js";
import { PROFILE_OBJECTS } from "../../src/runtime/profile.js";

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
