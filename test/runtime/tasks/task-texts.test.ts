/**
 * The task text the runtime builds for a long streamed artifact (runtime/tasks/task-texts.ts) is exactly
 * JSON.stringify(task): the stores keep it instead of serializing the task, so any difference would be
 * a difference in what GetTask returns. A task JSON cannot write is refused as the stores refuse it.
 * Likewise the artifact-update event texts it builds: they are what a stream's subscribers get and what
 * its log replays on resumption.
 */
import { describe, expect, it } from "vitest";
import { bundledIR } from "../../../src/load/protocol.js";
import { ProtocolShapes } from "../../../src/runtime/protocol-shapes.js";
import { ArtifactEventTexts, TaskTexts } from "../../../src/runtime/tasks/task-texts.js";
import { bundledVersions } from "../../../src/schema/load.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { StoreError } from "../../../src/runtime/stores/errors.js";

type Json = Record<string, unknown>;
const parts = (n: number, from = 0): Json[] => Array.from({ length: n }, (_, i) => ({ kind: "text", text: `chunk ${from + i} "q"\n✓` }));
const task = (artifacts: unknown[], extra: Json = {}): Json => ({ id: "t-1", contextId: "c-1", status: { state: "working" }, artifacts, ...extra, kind: "task" });

describe("TaskTexts", () => {
  it("leaves a task with few artifact parts to the store (no text)", () => {
    expect(new TaskTexts().of(task([{ artifactId: "a", parts: parts(3) }]))).toBeUndefined();
    expect(new TaskTexts().of({ id: "t", status: { state: "working" } })).toBeUndefined();
  });

  it("is JSON.stringify(task), key order, left-out values, holes and toJSON included", () => {
    const odd: unknown[] = parts(20);
    odd[25] = { kind: "data", data: { at: new Date(0), nothing: undefined, list: [undefined, () => 1] } };
    const artifacts = [
      { artifactId: "a", name: "story", parts: odd, metadata: { n: 1 }, skipped: undefined },
      { artifactId: "b", parts: [1, "two", null, undefined], description: "scalars" },
      "not an artifact",
      { artifactId: "c", parts: "not a list" },
      { artifactId: "d", toJSON: () => ({ replaced: true }) },
    ];
    const t = task(artifacts, { metadata: { "2": "index-like key first", z: [1, 2] }, ignored: () => 0 });
    expect(new TaskTexts().of(t)).toBe(JSON.stringify(t));
  });

  it("stays exact as the artifact grows, commit after commit, from the text of the array its parts were copied from", () => {
    const texts = new TaskTexts();
    let all = parts(16);
    for (let round = 1; round <= 5; round++) {
      const next = [...all, ...parts(10, all.length)];
      if (round % 2 === 0) texts.copied(next, all);
      all = next;
      // Appended in place before the commit (the runtime does within one batch): still in the text.
      all.push(...parts(2, all.length));
      const t = task([{ artifactId: "story", parts: all }, { artifactId: "other", parts: parts(1) }]);
      expect(texts.of(t)).toBe(JSON.stringify(t));
    }
  });

  it("takes from the array copied only the parts its text covers (it grew after its commit)", () => {
    const texts = new TaskTexts();
    const first = parts(20);
    expect(texts.of(task([{ artifactId: "a", parts: first }]))).toBeDefined();
    first.push(...parts(1, 20)); // not committed since: its text covers 20 parts, the copy took 21
    const copy = [...first, ...parts(3, 21)];
    texts.copied(copy, first);
    const t = task([{ artifactId: "a", parts: copy }]);
    expect(texts.of(t)).toBe(JSON.stringify(t));
  });

  it("refuses a part JSON cannot write with the store's error", () => {
    const cyclic: Json = { kind: "data" };
    cyclic["self"] = cyclic;
    expect(() => new TaskTexts().of(task([{ artifactId: "a", parts: [...parts(20), cyclic] }]))).toThrow(StoreError);
    expect(() => new TaskTexts().of(task([{ artifactId: "a", parts: [...parts(20), { kind: "data", n: 1n }] }]))).toThrow(/task "t-1" cannot be stored/);
  });

  it("is what the in-memory store keeps: a commit with it reads back as the task", async () => {
    const store = new InMemoryStore();
    const t = task([{ artifactId: "a", parts: parts(40) }]);
    await store.tasks.commit({ task: t, text: new TaskTexts().of(t), expectedVersion: 0 });
    expect(await store.tasks.get("t-1")).toEqual(t);
    await store.close();
  });
});

describe("ArtifactEventTexts", () => {
  const flags = [undefined, true, false] as const;

  it("is JSON.stringify(event) for the artifact events of every bundled version, every chunk flag, whatever the artifact holds", () => {
    for (const version of bundledVersions()) {
      const shapes = new ProtocolShapes(bundledIR(version).profile);
      const texts = new ArtifactEventTexts();
      for (let round = 0; round < 3; round++) {
        for (const append of flags) {
          for (const lastChunk of flags) {
            const artifact = {
              artifactId: `a-${round}`,
              name: "story \"quoted\" ✓ 🎉",
              parts: [{ kind: "text", text: `chunk ${round}\n` }, { kind: "data", data: { at: new Date(0), skipped: undefined, list: [undefined] } }],
              metadata: { "2": "index-like key", nothing: undefined },
            };
            const event = shapes.artifactEvent({ taskId: "t-1", contextId: "c-1", artifact, append, lastChunk, index: round });
            expect(texts.of(event, append, lastChunk), `${version} append=${append} lastChunk=${lastChunk}`).toBe(JSON.stringify(event));
          }
        }
      }
    }
  });

  it("gives no text where it could differ: an artifact with its own toJSON, an artifact member not last, a value JSON cannot write", () => {
    const texts = new ArtifactEventTexts();
    expect(texts.of({ kind: "artifact-update", artifact: { toJSON: () => "x" } }, true, false)).toBeUndefined();
    expect(new ArtifactEventTexts().of({ artifact: { artifactId: "a" }, append: true }, true, undefined)).toBeUndefined();
    expect(texts.of({ kind: "artifact-update", artifact: { artifactId: "a", metadata: { n: 1n } } }, undefined, undefined)).toBeUndefined();
    // The texts it gave before are not affected.
    expect(texts.of({ kind: "artifact-update", artifact: { artifactId: "a" } }, undefined, undefined)).toBe('{"kind":"artifact-update","artifact":{"artifactId":"a"}}');
    expect(new ArtifactEventTexts().of({ artifact: { artifactId: "a" } }, undefined, undefined)).toBe('{"artifact":{"artifactId":"a"}}');
  });
});
