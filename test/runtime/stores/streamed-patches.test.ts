/**
 * A long streamed artifact on PostgreSQL and Redis (issue 12): an agent that publishes its chunks one at a
 * time makes a write per chunk. The stores keep those writes as patches (`TaskCommit.patch`) and write the
 * whole task again only as the patches add up to its length: the text written grows like the artifact,
 * not like its square (1.0.1 §3.1.3 GetTask: reads still see every chunk committed so far, on any instance;
 * §3.1.6 SubscribeToTask: a subscriber's snapshot and the updates after it make exactly the artifact).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";
import type { PatchPlan } from "../../../src/runtime/stores/patch-policy.js";
import { inProcessContext as ctx, modules, streamedArtifact, testCard, type ChunkPublisher, type InProcessService } from "../../support/servers.js";
import { durableEngines } from "../../support/stores/durable-engines.js";

const CHUNKS = 300;
const pause = () => new Promise((r) => setTimeout(r, 1));
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Counts what a store writes: whole task texts (their characters) and patches, by spying on its policy's `written`. */
function countWrites(store: A2AStore) {
  const counts = { whole: 0, wholeChars: 0, patches: 0, patchChars: 0 };
  const policy = (store.tasks as unknown as { patchPolicy: { written(taskId: string, plan: PatchPlan): void } }).patchPolicy;
  const written = policy.written.bind(policy);
  policy.written = (taskId, plan) => {
    if ("patch" in plan) {
      counts.patches++;
      counts.patchChars += plan.patch.length;
    } else {
      counts.whole++;
      counts.wholeChars += plan.whole.length;
    }
    written(taskId, plan);
  };
  return counts;
}

/** A service over `store` (its agent, if ever asked to run, does nothing). */
async function serviceOn(store: A2AStore): Promise<InProcessService> {
  const m = await modules("1.0.1");
  const core = m.core.createA2AServer({ card: testCard("1.0.1") as never, executor: { execute: async () => undefined } as never, store: store as never, pushNotifications: false } as never);
  const service = (core as unknown as { service: InProcessService }).service;
  cleanup.push(() => service.close());
  return service;
}

/** A service over `writer` whose agent streams CHUNKS one-word chunks, one write each; every 50 chunks `check` reads. */
async function streamOn(writer: A2AStore, check: (taskId: string, sent: string[]) => Promise<void>): Promise<{ taskId: string; sent: string[] }> {
  const m = await modules("1.0.1");
  const sent: string[] = [];
  const checkErrors: unknown[] = [];
  const core = m.core.createA2AServer({
    card: testCard("1.0.1") as never,
    executor: {
      async execute(c: { taskId: string }, events: ChunkPublisher) {
        events.working();
        for (let i = 0; i < CHUNKS; i++) {
          const text = `word${i} `;
          events.artifact({ artifactId: "answer", name: "answer", parts: [events.textPart(text)] }, { append: i > 0, lastChunk: i === CHUNKS - 1 });
          sent.push(text);
          await pause();
          // A failed check fails the test, not only the agent (whose error the stream would only end with).
          if (i % 50 === 49) await check(c.taskId, [...sent]).catch((error: unknown) => checkErrors.push(error));
        }
        events.completed("done");
      },
    } as never,
    store: writer as never,
    pushNotifications: false,
    logger: { error: () => undefined, warn: () => undefined },
  } as never);
  const service = (core as unknown as { service: InProcessService }).service;
  cleanup.push(() => service.close());
  const message = { messageId: `m-${Date.now()}`, role: "ROLE_USER", parts: [{ text: "tell me" }] };
  const { taskId } = await streamedArtifact(await service.stream("SendStreamingMessage", { message }, ctx()));
  if (checkErrors.length > 0) throw checkErrors[0];
  return { taskId: taskId as string, sent };
}

for (const engine of durableEngines()) {
  describe(`${engine.name}: a stream of ${CHUNKS} chunks, one write each`, () => {
    it("is read whole on another instance at every point, and its whole text is written a few times, not at every write", async () => {
      const ns = `sp${process.pid.toString(36)}${Date.now().toString(36)}`;
      const writer = await engine.open(ns);
      const reader = await engine.open(ns);
      cleanup.push(async () => {
        await engine.drop(writer);
        await reader.close();
        await writer.close();
      });
      const counts = countWrites(writer);
      // The parts of the artifact as of the last commit the writer finished.
      let committed = 0;
      const commit = writer.tasks.commit.bind(writer.tasks);
      writer.tasks.commit = async (write) => {
        const result = await commit(write);
        const parts = (write.task as { artifacts?: Array<{ parts: unknown[] }> }).artifacts?.[0]?.parts.length ?? 0;
        committed = Math.max(committed, parts);
        return result;
      };
      const seen: number[] = [];
      const readerService = await serviceOn(reader);
      let subscription: ReturnType<typeof streamedArtifact> | undefined;
      const { taskId, sent } = await streamOn(writer, async (id, sentSoFar) => {
        // Mid-stream, a subscriber on the other instance (1.0.1 §3.1.6): the task as of its patches, then
        // every update after it; together exactly the chunks, none twice, none missed.
        if (sentSoFar.length === 100) subscription = streamedArtifact(await readerService.stream("SubscribeToTask", { id }, ctx()));
        const floor = committed;
        // Another instance (its own connection) reads every chunk committed so far: the patches applied.
        const read = (await reader.tasks.get(id)) as { artifacts: Array<{ parts: Array<{ text: string }> }> };
        const texts = read.artifacts[0]?.parts.map((p) => p.text) ?? [];
        expect(texts).toEqual(sentSoFar.slice(0, texts.length));
        expect(floor).toBeGreaterThan(seen.at(-1) ?? 0);
        expect(texts.length).toBeGreaterThanOrEqual(floor);
        const listed = (await reader.tasks.query({ contextId: (await reader.tasks.get(id))?.contextId as string })).tasks[0] as typeof read;
        expect(listed.artifacts[0]?.parts.length).toBeGreaterThanOrEqual(texts.length);
        seen.push(texts.length);
      });
      expect(seen).toHaveLength(CHUNKS / 50);
      const final = (await reader.tasks.get(taskId)) as { status: { state: string }; artifacts: Array<{ parts: Array<{ text: string }> }> };
      expect(final.status.state).toBe("TASK_STATE_COMPLETED");
      expect(final.artifacts[0]?.parts.map((p) => p.text)).toEqual(sent);
      expect(await subscription).toEqual({ taskId, texts: sent, state: "TASK_STATE_COMPLETED" });
      const finalLength = JSON.stringify(final).length;
      // Most writes were patches, each the size of its chunk (not of the task so far); the whole texts
      // written add up to a few times the final task's length (a geometric series: each is written once
      // the patches since the last add up to its length). Whole at every write, they would have added up
      // to about CHUNKS / 2 times.
      // (Chunks are one write each on a quiet machine; on a busy one some queue behind a write in flight
      // and go in the next, so the floor is a share of the writes made, not of the chunks, and the patches
      // are judged by their sum: each chunk is in one patch, whatever the batching, so they add up to about
      // three times the task's length (a patch is its chunks' parts inside its operations); patches
      // of the task so far would add up to about CHUNKS / 2 times.)
      expect(counts.patches).toBeGreaterThan((counts.patches + counts.whole) * 0.8);
      expect(counts.patchChars).toBeLessThan(5 * finalLength);
      expect(counts.whole).toBeLessThan(20);
      expect(counts.wholeChars).toBeLessThan(4 * finalLength);
    });
  });
}
