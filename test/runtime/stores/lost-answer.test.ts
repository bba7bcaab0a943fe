/**
 * A write whose answer is lost (the connection broke after the engine committed it): the runtime cannot
 * tell whether it was made, so it tries it again, meets a version conflict, and reads the task. The task
 * then holds the write already: applied again, its chunks would be in the artifact twice and its events in
 * the log twice. PostgreSQL and Redis keep the id of each task's last write with it
 * (`TaskCommit.writeId`, `VersionedTask.lastWriteId`), so the runtime sees its own write and goes on.
 */
import { afterAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/runtime/stores/errors.js";
import { inProcessContext as ctx, modules, streamedArtifact, testCard, type ChunkPublisher, type InProcessService } from "../../support/servers.js";
import { durableEngines } from "../../support/stores/durable-engines.js";

const CHUNKS = 40;
/** The writes whose answers are lost (counted from 1): the creation and interim writes; the turn's last too. */
const LOST = new Set([1, 5, 10]);
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

for (const engine of durableEngines()) {
  describe(`${engine.name}: writes whose answers are lost`, () => {
    it("are not applied twice: every chunk once in the task and in the log, and the turn completes", async () => {
      const store = await engine.open(`la${process.pid.toString(36)}${Date.now().toString(36)}`);
      cleanup.push(async () => {
        await engine.drop(store);
        await store.close();
      });
      // The engine commits the write; its answer never arrives.
      let writes = 0;
      let lost = 0;
      let lastLost = false;
      const commit = store.tasks.commit.bind(store.tasks);
      store.tasks.commit = async (write) => {
        const result = await commit(write);
        const last = JSON.stringify(write.task).includes("TASK_STATE_COMPLETED");
        if (LOST.has(++writes) || (last && !lastLost)) {
          lost++;
          lastLost ||= last;
          throw new StoreUnavailableError(engine.name, "connection lost before the answer (test)");
        }
        return result;
      };
      const m = await modules("1.0.1");
      const core = m.core.createA2AServer({
        card: testCard("1.0.1") as never,
        executor: {
          async execute(_c: unknown, events: ChunkPublisher) {
            events.working();
            for (let i = 0; i < CHUNKS; i++) {
              events.artifact({ artifactId: "a", parts: [events.textPart(`w${i} `)] }, { append: i > 0 });
              await new Promise((r) => setTimeout(r, 10));
            }
            events.completed("done");
          },
        } as never,
        store: store as never,
        pushNotifications: false,
        logger: { error: () => undefined, warn: () => undefined },
      } as never);
      const service = (core as unknown as { service: InProcessService }).service;
      cleanup.push(() => service.close());
      const message = { messageId: "m-lost", role: "ROLE_USER", parts: [{ text: "go" }] };
      const { taskId, texts } = await streamedArtifact(await service.stream("SendStreamingMessage", { message }, ctx()));
      const expected = Array.from({ length: CHUNKS }, (_, i) => `w${i} `);
      expect(writes).toBeGreaterThan(Math.max(...LOST));
      expect(lost).toBe(LOST.size + 1);
      // The stream's reader, the stored task and the log: each chunk once.
      expect(texts).toEqual(expected);
      const stored = (await service.call("GetTask", { id: taskId }, ctx())) as { status: { state: string }; artifacts: Array<{ parts: Array<{ text: string }> }> };
      expect(stored.status.state).toBe("TASK_STATE_COMPLETED");
      expect(stored.artifacts[0]?.parts.map((p) => p.text)).toEqual(expected);
      const logged = await store.events.read(taskId as string);
      const chunks = logged.filter((e) => "artifactUpdate" in e.event || "artifact" in e.event);
      expect(chunks).toHaveLength(CHUNKS);
    });
  });
}
