/**
 * A write whose answer is lost (the connection broke after the engine committed it): the runtime cannot
 * tell whether it was made, so it tries it again, meets a version conflict, and reads the task. The task
 * then holds the write already: applied again, its chunks would be in the artifact twice and its events in
 * the log twice. PostgreSQL and Redis keep the id of each task's last write with it
 * (`TaskCommit.writeId`, `VersionedTask.lastWriteId`), so the runtime sees its own write and goes on.
 */
import { afterAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/runtime/stores/postgres.js";
import { RedisStore } from "../../../src/runtime/stores/redis.js";
import { StoreUnavailableError, type A2AStore } from "../../../src/runtime/tasks.js";
import { modules, testCard } from "../server/harness.js";
import { engineUrl } from "./contract.js";

type Json = Record<string, unknown>;
interface Service {
  stream(method: string, params: unknown, ctx: object): Promise<AsyncIterable<unknown>>;
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  close(): Promise<void>;
}
interface Events {
  working(m?: string): void;
  completed(m?: string): void;
  artifact(a: Json, o?: { append?: boolean; lastChunk?: boolean }): void;
  textPart(t: string): Json;
}

const CHUNKS = 40;
/** The writes whose answers are lost (counted from 1): the creation and interim writes; the turn's last too. */
const LOST = new Set([1, 5, 10]);
const ctx = () => ({ headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" });
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

const engines: Array<{ name: string; open: (ns: string) => Promise<A2AStore>; drop: (store: A2AStore) => Promise<void> }> = [];
const pgUrl = engineUrl("A2A_TEST_POSTGRES_URL", "PostgreSQL");
if (pgUrl) engines.push({ name: "postgres", open: (ns) => PostgresStore.connect({ connectionString: pgUrl, tablePrefix: `${ns}_` }), drop: (s) => (s as PostgresStore).dropTables() });
const redisUrl = engineUrl("A2A_TEST_REDIS_URL", "Redis");
if (redisUrl) engines.push({ name: "redis", open: (ns) => RedisStore.connect({ url: redisUrl, keyPrefix: `${ns}:` }), drop: (s) => (s as RedisStore).dropKeys() });

for (const engine of engines) {
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
          async execute(_c: unknown, events: Events) {
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
      const service = (core as unknown as { service: Service }).service;
      cleanup.push(() => service.close());
      const message = { messageId: "m-lost", role: "ROLE_USER", parts: [{ text: "go" }] };
      let texts: string[] = [];
      let taskId = "";
      for await (const event of await service.stream("SendStreamingMessage", { message }, ctx())) {
        const { task, artifactUpdate } = event as { task?: Json; artifactUpdate?: Json };
        if (task) taskId = task["id"] as string;
        const parts = ((artifactUpdate?.["artifact"] as Json | undefined)?.["parts"] as Array<{ text: string }> | undefined) ?? [];
        if (artifactUpdate) texts = artifactUpdate["append"] ? [...texts, ...parts.map((p) => p.text)] : parts.map((p) => p.text);
      }
      const expected = Array.from({ length: CHUNKS }, (_, i) => `w${i} `);
      expect(writes).toBeGreaterThan(Math.max(...LOST));
      expect(lost).toBe(LOST.size + 1);
      // The stream's reader, the stored task and the log: each chunk once.
      expect(texts).toEqual(expected);
      const stored = (await service.call("GetTask", { id: taskId }, ctx())) as { status: { state: string }; artifacts: Array<{ parts: Array<{ text: string }> }> };
      expect(stored.status.state).toBe("TASK_STATE_COMPLETED");
      expect(stored.artifacts[0]?.parts.map((p) => p.text)).toEqual(expected);
      const logged = await store.events.read(taskId);
      const chunks = logged.filter((e) => "artifactUpdate" in e.event || "artifact" in e.event);
      expect(chunks).toHaveLength(CHUNKS);
    });
  });
}
