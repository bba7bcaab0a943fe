// The busy-machine rule of the benches (bench/machine-load.mjs, issue 37): a verdict only on a quiet
// machine. Pure functions over readings: no timing is measured here.
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain ES module of the benches, without type declarations
import { BUSY_VERDICT, machineState, othersBetween, verdict } from "../../bench/machine-load.mjs";

const quietProbe = { othersCores: 0.05, steal: 0, load: 0.4, cores: 2 };

describe("bench/machine-load.mjs", () => {
  it("gives PASS or MISS on a quiet machine", () => {
    const state = machineState({ probe: quietProbe, during: [0.02, 0.1, 0.3, 0.05, 0.0] });
    expect(state.busy).toBe(false);
    expect(verdict(true, state)).toBe("PASS");
    expect(verdict(false, state)).toBe("MISS");
    expect(state.summary).toMatch(/→ quiet$/);
  });

  it("gives no verdict when other processes used a quarter of a core before the runs", () => {
    const state = machineState({ probe: { ...quietProbe, othersCores: 0.3 }, during: [0, 0, 0] });
    expect(state.busy).toBe(true);
    expect(verdict(true, state)).toBe(BUSY_VERDICT);
    expect(state.reasons.join()).toMatch(/before the runs other processes used 0\.30 of 2 cores/);
  });

  it("is busy on steal, on a high load average, and when the median run or a third of the runs shared the machine", () => {
    expect(machineState({ probe: { ...quietProbe, steal: 0.05 } }).busy).toBe(true);
    expect(machineState({ probe: { ...quietProbe, load: 1.2 } }).busy).toBe(true);
    expect(machineState({ probe: quietProbe, during: [0.3, 0.4, 0.1] }).busy).toBe(true); // median 0.3
    expect(machineState({ probe: quietProbe, during: [0.5, 0.5, 0, 0, 0] }).busy).toBe(true); // 2 of 5 runs
    expect(machineState({ probe: quietProbe, during: [0.5, 0, 0, 0, 0] }).busy).toBe(false); // 1 of 5 runs
    expect(machineState({ probe: quietProbe, during: [0, 0, 0], steals: [0.04, 0.05, 0.04] }).busy).toBe(true);
  });

  it("counts as others the machine's busy time less this process's and the CPU named as ours", () => {
    const a = { at: 0, busy: 1000, idle: 5000, steal: 0, own: 100 };
    const b = { at: 1000, busy: 2500, idle: 5500, steal: 0, own: 600 }; // 1,500 ms busy in 1 s, 500 of it ours
    expect(othersBetween(a, b).othersCores).toBeCloseTo(1.0);
    expect(othersBetween(a, b, 700).othersCores).toBeCloseTo(0.3); // and 700 ms of a server child's
    expect(othersBetween(a, b, 5000).othersCores).toBe(0);
  });
});
