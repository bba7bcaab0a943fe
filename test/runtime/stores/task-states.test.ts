/**
 * Task states an agent sets (issue 13 item 1): `events.status()` takes only the version's states, in its
 * own spelling or the 0.x one, and a state the version lacks is refused at run time too, at the call,
 * with a TypeError naming the states, never written to the wire (the enum mapping no longer falls back to
 * its input). The compile-time half is in test/types/probe-*.ts (`events.status("complet")`).
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../../src/load/protocol.js";
import { canonicalValue, isTerminalState } from "../../../src/runtime/profile.js";
import { ProtocolShapes } from "../../../src/runtime/protocol-shapes.js";
import { taskFacts } from "../../../src/runtime/stores/task-json.js";
import { bundledVersions } from "../../../src/schema/load.js";
import { modules, testCard } from "../../support/servers.js";

const shapesOf = (version: string) => new ProtocolShapes(bundledIR(version).profile);

describe("ProtocolShapes.stateValue", () => {
  it("spells a state the version's way, from either spelling (1.0.1 §4.1.3 TaskState)", () => {
    const v1 = shapesOf("1.0.1");
    expect(v1.stateValue("completed")).toBe("TASK_STATE_COMPLETED");
    expect(v1.stateValue("input-required")).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(v1.stateValue("TASK_STATE_AUTH_REQUIRED")).toBe("TASK_STATE_AUTH_REQUIRED");
    expect(shapesOf("0.3.0").stateValue("auth-required")).toBe("auth-required");
  });

  it("refuses a misspelled state with a TypeError naming the version's states", () => {
    const v1 = shapesOf("1.0.1");
    expect(() => v1.stateValue("complet")).toThrow(TypeError);
    expect(() => v1.stateValue("complet")).toThrow(/^"complet" is not a task state of A2A 1\.0\.1: one of "submitted" \(TASK_STATE_SUBMITTED\), "working" \(TASK_STATE_WORKING\), "completed" \(TASK_STATE_COMPLETED\)/);
    expect(() => shapesOf("0.3.0").stateValue("complet")).toThrow(/^"complet" is not a task state of A2A 0\.3\.0: one of "submitted", "working", /);
  });

  it("refuses the proto's zero value, another version's spelling, and a state the version does not have", () => {
    expect(() => shapesOf("1.0.1").stateValue("TASK_STATE_UNSPECIFIED")).toThrow(/not a task state of A2A 1\.0\.1/);
    expect(() => shapesOf("1.0.1").stateValue("unspecified")).toThrow(/not a task state/);
    expect(() => shapesOf("0.3.0").stateValue("TASK_STATE_COMPLETED")).toThrow(/not a task state of A2A 0\.3\.0/);
    // 0.1.0 has neither rejected nor auth-required.
    expect(() => shapesOf("0.1.0").stateValue("rejected")).toThrow(/not a task state of A2A 0\.1\.0/);
    expect(() => shapesOf("0.1.0").stateValue("auth-required")).toThrow(/not a task state of A2A 0\.1\.0/);
  });
});

describe("events.status() in a running server", () => {
  it("throws at the executor's call for an unknown state, and the task never carries it", async () => {
    const m = await modules("1.0.1");
    const thrown: unknown[] = [];
    const core = m.core.createA2AServer({
      card: testCard("1.0.1") as never,
      executor: {
        execute(_ctx: unknown, events: { status(state: string, message?: string): void; completed(message?: string): void }) {
          try {
            events.status("complet");
          } catch (error) {
            thrown.push(error);
          }
          events.completed("done");
        },
      } as never,
      pushNotifications: false,
      logger: { error: () => undefined },
    }) as unknown as { service: { call(method: string, params: unknown, ctx: object): Promise<unknown>; close(): Promise<void> } };
    const ctx = { headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" };
    const result = (await core.service.call("SendMessage", { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "x" }] } }, ctx)) as { task: { status: { state: string } } };
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(TypeError);
    expect(String((thrown[0] as Error).message)).toMatch(/^"complet" is not a task state of A2A 1\.0\.1/);
    expect(result.task.status.state).toBe("TASK_STATE_COMPLETED");
    await core.service.close();
  });
});

describe("terminal states in the stores (issue 13: version knowledge in one place)", () => {
  // specification-1.0.1.md §3.1 (SendMessage errors) and §3.2: the terminal states are TASK_STATE_COMPLETED,
  // _FAILED, _CANCELED and _REJECTED; the 0.x texts spell them completed, failed, canceled, rejected.
  it.each(bundledVersions())("A2A %s: a stored task is finished exactly when the profile calls its state terminal", (version) => {
    const shapes = shapesOf(version);
    const states = shapes.profile.taskStates;
    expect(states.length).toBeGreaterThan(0);
    for (const state of states) {
      const facts = taskFacts({ id: "t1", contextId: "c1", status: { state } });
      expect({ state, terminal: facts.terminal }).toEqual({ state, terminal: shapes.isTerminal(state) });
      expect(isTerminalState(state)).toBe(["completed", "failed", "canceled", "rejected"].includes(canonicalValue(state)));
    }
    expect(states.filter((s) => shapes.isTerminal(s)).length).toBe(version === "0.1.0" ? 3 : 4);
  });

  it("a state no version has is not terminal", () => {
    expect(taskFacts({ id: "t1", status: { state: "complet" } }).terminal).toBe(false);
    expect(taskFacts({ id: "t1", status: {} }).terminal).toBe(false);
  });
});
