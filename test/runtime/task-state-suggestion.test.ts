/**
 * Issue 29 item 18 (runtime part): `events.status()` with a state the version lacks is refused with a
 * TypeError that names the version's states (1.0.1 §4.1.3 TaskState; 0.3.0 §6.3) and, for a near miss,
 * the state it likely means, in the caller's spelling.
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../src/load/protocol.js";
import { ProtocolShapes } from "../../src/runtime/protocol-shapes.js";

const shapesOf = (version: string) => new ProtocolShapes(bundledIR(version).profile);
const messageOf = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  return "";
};

describe("a bad events.status() state", () => {
  it("names every state and suggests the near one", () => {
    const message = messageOf(() => shapesOf("1.0.1").stateValue("complete"));
    expect(message).toContain('"completed" (TASK_STATE_COMPLETED)');
    expect(message).toContain('"auth-required" (TASK_STATE_AUTH_REQUIRED)');
    expect(message).toMatch(/; did you mean "completed"\?$/);
  });

  it.each([
    ["1.0.1", "Cancelled", "canceled"],
    ["1.0.1", "input_required", "input-required"],
    ["1.0.1", "TASK_STATE_COMPLETE", "TASK_STATE_COMPLETED"],
    ["0.3.0", "TASK_STATE_COMPLETED", "completed"],
    ["0.3.0", "workin", "working"],
  ])("%s: %s → did you mean %s", (version, state, near) => {
    expect(messageOf(() => shapesOf(version).stateValue(state))).toMatch(new RegExp(`did you mean "${near}"\\?$`));
  });

  it("suggests nothing for a state with no near one, and still names the states", () => {
    const message = messageOf(() => shapesOf("0.1.0").stateValue("done"));
    expect(message).toMatch(/^"done" is not a task state of A2A 0\.1\.0: one of "submitted", "working",/);
    expect(message).not.toContain("did you mean");
  });
});
