/**
 * The patch of an interim write (runtime/stores/task-patch.ts): what a durable store keeps instead of the whole
 * task at each write of a streamed artifact (issue 12). A patch made from two tasks, applied to the first
 * task's text read back, gives the second exactly; a change it cannot say makes the writer write whole.
 */
import { describe, expect, it } from "vitest";
import { applyTaskPatch, taskPatch } from "../../../src/runtime/stores/task-patch.js";
import { TaskPatchPolicy, withPatches } from "../../../src/runtime/stores/patch-policy.js";
import type { TaskCommit } from "../../../src/runtime/stores/contract.js";
import { rng } from "../../support/seeded-random.js";

type Json = Record<string, unknown>;
const reread = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** `after` from the patch of before → after applied to before's text: the same JSON. */
function roundTrip(before: Json, after: Json): Json {
  const patch = taskPatch(before, after);
  expect(patch).toBeDefined();
  return applyTaskPatch(reread(before), reread(patch!));
}

describe("taskPatch / applyTaskPatch", () => {
  it("says a streamed artifact's chunks as appends to its parts, a status's new members as adds, a history message as an append", () => {
    const parts = [{ kind: "text", text: "a" }];
    const artifact = { artifactId: "x", parts };
    const history = [{ role: "user", parts: [] }];
    const before: Json = { id: "t", status: { state: "working" }, history, artifacts: [artifact] };
    // As the runtime makes the next write: copies of what changes, the rest shared.
    const after: Json = {
      ...before,
      status: { state: "working", message: { role: "agent" } },
      history: [...history, { role: "agent" }],
      artifacts: [{ ...artifact, parts: [...parts, { kind: "text", text: "b" }, { kind: "text", text: "c" }] }, { artifactId: "y", parts: [] }],
      metadata: { k: 1 },
    };
    expect(taskPatch(before, after)).toEqual([
      // A new object is compared member by member too: only what differs is written.
      { op: "add", path: "/status/message", value: { role: "agent" } },
      { op: "add", path: "/history/-", value: { role: "agent" } },
      { op: "add", path: "/artifacts/0/parts/-", value: { kind: "text", text: "b" } },
      { op: "add", path: "/artifacts/0/parts/-", value: { kind: "text", text: "c" } },
      { op: "add", path: "/artifacts/-", value: { artifactId: "y", parts: [] } },
      { op: "add", path: "/metadata", value: { k: 1 } },
    ]);
    expect(roundTrip(before, after)).toEqual(reread(after));
    // Nothing changed: an empty patch.
    expect(taskPatch(before, { ...before })).toEqual([]);
  });

  it("escapes member names as JSON Pointer tokens and keeps a member named __proto__ a member", () => {
    const before: Json = { id: "t", metadata: { "a/b": 1, "c~d": { x: 1 } } };
    const after: Json = { id: "t", metadata: { "a/b": 2, "c~d": { x: 1, y: 2 } } };
    expect(taskPatch(before, after)?.map((o) => o.path)).toEqual(["/metadata/a~1b", "/metadata/c~0d/y"]);
    expect(roundTrip(before, after)).toEqual(after);
    const hostile = JSON.parse('{"id":"t","metadata":{"__proto__":{"polluted":true}}}') as Json;
    const applied = roundTrip({ id: "t" }, hostile);
    expect(Object.keys(applied.metadata as Json)).toEqual(["__proto__"]);
    expect(({} as Json).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(applied.metadata)).toBe(Object.prototype);
  });

  it("replaces a value of a class (a Date, anything with toJSON) rather than comparing its members", () => {
    const before: Json = { id: "t", metadata: { at: new Date(0), custom: { toJSON: () => "one" } } };
    const after: Json = { id: "t", metadata: { at: new Date(1000), custom: { toJSON: () => "two" } } };
    expect(taskPatch(before, after)).toEqual([
      { op: "replace", path: "/metadata/at", value: new Date(1000) },
      { op: "replace", path: "/metadata/custom", value: (after.metadata as Json).custom },
    ]);
    expect(roundTrip(before, after)).toEqual(reread(after));
  });

  it("cannot say a removed member (the writer writes the whole task); a shorter array is replaced", () => {
    expect(taskPatch({ id: "t", metadata: { a: 1 } }, { id: "t" })).toBeUndefined();
    expect(taskPatch({ id: "t", metadata: { a: 1 } }, { id: "t", metadata: { a: undefined } })).toBeUndefined();
    const before: Json = { id: "t", artifacts: [{ parts: [1, 2, 3] }] };
    const after: Json = { id: "t", artifacts: [{ parts: [1] }] };
    expect(taskPatch(before, after)).toEqual([{ op: "replace", path: "/artifacts/0/parts", value: [1] }]);
    expect(roundTrip(before, after)).toEqual(after);
  });

  it("a patch that does not fit the task throws, naming the path", () => {
    expect(() => applyTaskPatch({ id: "t" }, [{ op: "add", path: "/artifacts/0/parts/-", value: 1 }])).toThrow(/"\/artifacts\/0\/parts\/-" leads nowhere/);
    expect(() => applyTaskPatch({ id: "t", artifacts: [] }, [{ op: "replace", path: "/artifacts/3", value: 1 }])).toThrow(/has no item 3/);
    expect(() => applyTaskPatch({ id: "t" }, [{ op: "replace", path: "/status", value: 1 }])).toThrow(/replaces a member the stored task lacks/);
    expect(() => withPatches({ id: "t" }, [[{ op: "replace", path: "/status", value: 1 }]], "t")).toThrow(/task "t": its stored patches do not apply/);
  });

  it("random streams of chunks, statuses and messages: every write's patch, applied in turn to the first text, gives every write", () => {
    const random = rng(12);
    for (let run = 0; run < 200; run++) {
      let task: Json = { id: `t${run}`, contextId: "c", status: { state: "submitted" }, history: [{ role: "user", parts: [] }] };
      let stored = reread(task);
      for (let write = 0; write < 20; write++) {
        const next: Json = { ...task };
        for (let change = random.int(4); change >= 0; change--) {
          const artifacts = (next.artifacts as Json[] | undefined) ?? [];
          const kind = random.int(4);
          if (kind === 0) next.status = { state: random.pick(["working", "input-required"]), timestamp: String(random.int(1e6)) };
          else if (kind === 1) next.history = [...(next.history as Json[]), { role: "agent", parts: [{ kind: "text", text: `m${write}` }] }];
          else if (kind === 2 || artifacts.length === 0) next.artifacts = [...artifacts, { artifactId: `a${write}`, parts: [{ kind: "text", text: "~/\"\n" }] }];
          else {
            const at = random.int(artifacts.length);
            const copy = [...artifacts];
            const one = copy[at] as Json;
            copy[at] = { ...one, parts: [...(one.parts as Json[]), { kind: "text", text: `w${write}` }] };
            next.artifacts = copy;
          }
        }
        stored = applyTaskPatch(stored, reread(taskPatch(task, next)!));
        expect(stored).toEqual(reread(next));
        task = next;
      }
    }
  });
});

describe("TaskPatchPolicy (when a store writes a streamed task whole again)", () => {
  const commit = (write: Partial<TaskCommit>): TaskCommit => ({ task: { id: "t", big: "x".repeat(10_000) }, expectedVersion: 3, ...write }) as TaskCommit;
  const patch = [{ op: "add" as const, path: "/artifacts/0/parts/-", value: { kind: "text", text: "word " } }];

  it("writes whole first, then patches until they add up to the task's length, then whole again; a turn's last write whole", () => {
    const policy = new TaskPatchPolicy();
    const interim = commit({ interim: true, patch, interimText: () => "W".repeat(8_000) });
    const plans = [];
    for (let i = 0; i < 250; i++) {
      const plan = policy.plan("t", interim);
      policy.written("t", plan);
      plans.push("patch" in plan ? "p" : "W");
    }
    const sequence = plans.join("");
    const patchLength = JSON.stringify(patch).length;
    const perWhole = Math.ceil(8_000 / patchLength);
    // Whole, then as many patches as fit in 8,000 characters, then whole again.
    expect(sequence.startsWith(`W${"p".repeat(perWhole - 1)}W`)).toBe(true);
    expect(sequence.split("W").length - 1).toBe(Math.ceil(250 / perWhole));
    // Not interim (the turn's last write): whole, and the next interim write is whole again.
    const last = policy.plan("t", commit({ text: "final" }));
    expect(last).toEqual({ whole: "final", interim: false });
    policy.written("t", last);
    expect("whole" in policy.plan("t", interim)).toBe(true);
  });

  it("never patches a creation, a write without a patch, or a write that failed (the next one decides again)", () => {
    const policy = new TaskPatchPolicy();
    const interim = commit({ interim: true, patch, interimText: () => "W".repeat(8_000) });
    policy.written("t", policy.plan("t", interim));
    expect("patch" in policy.plan("t", interim)).toBe(true);
    expect("whole" in policy.plan("t", { ...interim, expectedVersion: 0 })).toBe(true);
    expect("whole" in policy.plan("t", { ...interim, patch: undefined } as TaskCommit)).toBe(true);
    // Planned but not written (a conflict): nothing counted.
    for (let i = 0; i < 1000; i++) policy.plan("t", interim);
    expect("patch" in policy.plan("t", interim)).toBe(true);
  });
});
