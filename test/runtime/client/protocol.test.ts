// The version logic the generated client used to keep in its template (issue 13), now in
// src/runtime/client/protocol.ts: when a stream is over, and the protocol headers of every request.
import { describe, expect, it } from "vitest";
import { isFinalEvent, protocolHeaders } from "../../../src/runtime/client/protocol.js";
import { ProtocolShapes } from "../../../src/runtime/protocol-shapes.js";
import { A2A_PROFILE as V03 } from "../../../generated/a2a-0.3.0/protocol.js";
import { A2A_PROFILE as V1 } from "../../../generated/a2a-1.0.1/protocol.js";
import { A2A_PROFILE as V010 } from "../../../generated/a2a-0.1.0/protocol.js";

const v03 = new ProtocolShapes(V03);
const v1 = new ProtocolShapes(V1);
const v010 = new ProtocolShapes(V010);

describe("isFinalEvent", () => {
  it("0.3: a message, a final status update or a task in a terminal state ends the stream (§7.2 final flag)", () => {
    expect(isFinalEvent(v03, { kind: "message", messageId: "m", role: "agent", parts: [] })).toBe(true);
    expect(isFinalEvent(v03, { kind: "status-update", taskId: "t", contextId: "c", status: { state: "working" }, final: false })).toBe(false);
    expect(isFinalEvent(v03, { kind: "status-update", taskId: "t", contextId: "c", status: { state: "input-required" }, final: true })).toBe(true);
    // final: false on a terminal state still ends it: nothing can follow a terminal state.
    expect(isFinalEvent(v03, { kind: "status-update", taskId: "t", contextId: "c", status: { state: "completed" }, final: false })).toBe(true);
    expect(isFinalEvent(v03, { kind: "task", id: "t", contextId: "c", status: { state: "working" } })).toBe(false);
    expect(isFinalEvent(v03, { kind: "task", id: "t", contextId: "c", status: { state: "failed" } })).toBe(true);
    expect(isFinalEvent(v03, { kind: "artifact-update", taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [] } })).toBe(false);
    expect(isFinalEvent(v03, "not an event")).toBe(false);
  });

  it("1.0: no final flag; a terminal or interrupted state ends the stream, inside its StreamResponse wrapper", () => {
    expect(isFinalEvent(v1, { message: { messageId: "m", role: "ROLE_AGENT", parts: [] } })).toBe(true);
    expect(isFinalEvent(v1, { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_WORKING" } } })).toBe(false);
    expect(isFinalEvent(v1, { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_INPUT_REQUIRED" } } })).toBe(true);
    expect(isFinalEvent(v1, { statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_CANCELED" } } })).toBe(true);
    expect(isFinalEvent(v1, { task: { id: "t", contextId: "c", status: { state: "TASK_STATE_SUBMITTED" } } })).toBe(false);
    expect(isFinalEvent(v1, { task: { id: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } })).toBe(true);
    expect(isFinalEvent(v1, { artifactUpdate: { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [] } } })).toBe(false);
  });

  it("0.1.0: updates without kind, told apart by their members", () => {
    expect(isFinalEvent(v010, { id: "t", status: { state: "working" }, final: false })).toBe(false);
    expect(isFinalEvent(v010, { id: "t", status: { state: "completed" }, final: true })).toBe(true);
  });
});

describe("protocolHeaders", () => {
  it("1.0 sends A2A-Version with the major.minor version (§3.6.1); earlier versions send none", () => {
    expect(protocolHeaders(V1)).toEqual({ "A2A-Version": "1.0" });
    expect(protocolHeaders(V03)).toEqual({});
    expect(protocolHeaders(V010)).toEqual({});
  });
});
