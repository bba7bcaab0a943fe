import { afterAll, describe, expect, it } from "vitest";
import { validateTask as validateTask10 } from "../../generated/a2a-1.0.1/validators.js";
import { validateTask as validateTask03 } from "../../generated/a2a-0.3.0/validators.js";
import { migrationRules } from "../../src/migrate/rules.js";
import { convertStore } from "../../src/migrate/store.js";
import type { A2AStore } from "../../src/runtime/stores/contract.js";
import { inProcessContext, modules, testCard, type InProcessService } from "../support/servers.js";
import { durableEngines } from "../support/stores/durable-engines.js";

/**
 * Issue 33, item 3: a durable store holding tasks a 0.3 agent wrote is read by the 1.0.1 agent after
 * `migrate --store`: its tasks and push configs are rewritten in 1.0.1's shapes by the version mapping.
 */

/** Tasks as a 0.3.0 agent keeps them: a finished one with a streamed artifact of text, file and data parts; one asking for input. */
const TASKS_03 = [
  {
    kind: "task",
    id: "t-done",
    contextId: "c-1",
    status: { state: "completed", timestamp: "2026-01-01T00:00:00.000Z", message: { kind: "message", messageId: "m-2", role: "agent", parts: [{ kind: "text", text: "Done." }] } },
    history: [{ kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "stream a b" }], taskId: "t-done", contextId: "c-1" }],
    artifacts: [
      {
        artifactId: "report",
        name: "report",
        parts: [
          { kind: "text", text: "a b " },
          { kind: "data", data: { words: 2 } },
          { kind: "file", file: { uri: "https://example.com/report.txt", mimeType: "text/plain", name: "report.txt" } },
          { kind: "file", file: { bytes: "aGk=", mimeType: "text/plain" } },
        ],
      },
    ],
  },
  {
    kind: "task",
    id: "t-asks",
    contextId: "c-2",
    status: { state: "input-required", timestamp: "2026-01-01T00:00:01.000Z", message: { kind: "message", messageId: "m-4", role: "agent", parts: [{ kind: "text", text: "What is your name?" }] } },
  },
];

const engines = durableEngines();
const opened: Array<[A2AStore, (s: A2AStore) => Promise<void>]> = [];
afterAll(async () => {
  for (const [store, drop] of opened) {
    await drop(store);
    await store.close();
  }
});

describe.each(engines)("$name store, written by a 0.3.0 agent", (engine) => {
  it("is rewritten in 1.0.1's shapes (1.0.1 §4.1.3 states, §4.1.6 parts, §5.5 enum names), push configs flattened, and a second run changes nothing", async () => {
    const store = await engine.open(`migrate_${process.pid}_${Date.now() % 100000}`);
    opened.push([store, engine.drop]);
    for (const task of TASKS_03) {
      expect(validateTask03(task), JSON.stringify(validateTask03.errors)).toBe(true);
      await store.tasks.save(task);
    }
    await store.pushConfigs.set("t-asks", { id: "cfg-1", url: "https://client.example.com/hook", token: "secret" });

    const { mapping } = migrationRules("0.3.0", "1.0.1");
    if (!mapping) throw new Error("0.3.0 → 1.0.1 has a version mapping");
    expect(await convertStore(store, mapping.mapping, mapping.direction)).toEqual({ tasks: 2, unchanged: 0, configs: 1 });

    const done = (await store.tasks.load("t-done"))?.task;
    expect(validateTask10(done), JSON.stringify(validateTask10.errors)).toBe(true);
    expect(done).toMatchObject({
      id: "t-done",
      status: { state: "TASK_STATE_COMPLETED", message: { role: "ROLE_AGENT", parts: [{ text: "Done." }] } },
      history: [{ role: "ROLE_USER", parts: [{ text: "stream a b" }] }],
      artifacts: [{ parts: [{ text: "a b " }, { data: { words: 2 } }, { url: "https://example.com/report.txt", mediaType: "text/plain", filename: "report.txt" }, { raw: "aGk=", mediaType: "text/plain" }] }],
    });
    expect(done).not.toHaveProperty("kind");
    const asks = (await store.tasks.load("t-asks"))?.task;
    expect(validateTask10(asks), JSON.stringify(validateTask10.errors)).toBe(true);
    expect(asks).toMatchObject({ status: { state: "TASK_STATE_INPUT_REQUIRED" } });
    // Still found by state: the store's columns follow the rewritten task.
    expect((await store.tasks.query({ status: "TASK_STATE_INPUT_REQUIRED" } as never)).tasks.map((t) => t["id"])).toEqual(["t-asks"]);
    expect(await store.pushConfigs.list("t-asks")).toEqual([{ taskId: "t-asks", id: "cfg-1", url: "https://client.example.com/hook", token: "secret" }]);

    expect(await convertStore(store, mapping.mapping, mapping.direction)).toEqual({ tasks: 0, unchanged: 2, configs: 0 });

    // The 1.0.1 agent reads them: GetTask answers the finished task, and the task that asked for input
    // goes on with the next message (1.0.1 §3.1.3, §3.3.3), its executor seeing the task in 1.0.1's shape.
    const m = await modules("1.0.1");
    const seen: unknown[] = [];
    const core = m.core.createA2AServer({
      card: testCard("1.0.1") as never,
      executor: {
        execute(c: { task: unknown }, events: { completed(m?: string): void }) {
          seen.push(c.task);
          events.completed("Nice to meet you!");
        },
      } as never,
      store: store as never,
      logger: { error: () => undefined, warn: () => undefined },
    } as never);
    const service = (core as unknown as { service: InProcessService }).service;
    try {
      const got = (await service.call("GetTask", { id: "t-done" }, inProcessContext())) as Record<string, unknown>;
      expect(validateTask10(got), JSON.stringify(validateTask10.errors)).toBe(true);
      expect(got).toMatchObject({ id: "t-done", status: { state: "TASK_STATE_COMPLETED" } });
      const message = { messageId: "m-5", role: "ROLE_USER", parts: [{ text: "Ada" }], taskId: "t-asks", contextId: "c-2" };
      const sent = (await service.call("SendMessage", { message }, inProcessContext())) as { task?: Record<string, unknown> };
      expect(sent.task).toMatchObject({ id: "t-asks", status: { state: "TASK_STATE_COMPLETED" } });
      expect(seen).toEqual([expect.objectContaining({ id: "t-asks", status: expect.objectContaining({ state: "TASK_STATE_INPUT_REQUIRED" }) })]);
    } finally {
      await service.close();
    }
  });
});

describe("migrate --store", () => {
  it("takes postgres://, mysql:// and redis:// URLs only, and never echoes the URL (it may hold a password)", async () => {
    const { migrate } = await import("../../src/migrate/command.js");
    const { tempDir } = await import("../support/project.js");
    const failure = migrate({ cwd: tempDir(), from: "0.3.0", to: "1.0.1", store: "mongodb://user:hunter2@db/agent" });
    await expect(failure).rejects.toThrow(/--store: unsupported scheme "mongodb"; a store URL is postgres:\/\/…, mysql:\/\/… or redis:\/\/…/);
    await expect(failure).rejects.not.toThrow(/hunter2/);
  });
});
