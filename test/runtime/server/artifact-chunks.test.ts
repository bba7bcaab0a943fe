/**
 * Artifact chunks (1.0.1 §3.1.2 SendStreamingMessage: TaskArtifactUpdateEvent with `append`, and
 * §4.1 Artifact): the chunks an agent publishes without waiting in between are recorded in one commit,
 * and the runtime appends them to one parts array made for that commit instead of copying the parts
 * on every chunk. What must hold whatever the batching:
 * - the stored task has every chunk's parts, in order;
 * - each streamed artifact event carries its own chunk's parts only;
 * - no event a subscriber got changes afterwards, and every write reads back later as it was written: a
 *   task committed without `interimText` is never changed; with a store that keeps interim writes, the
 *   runtime appends later chunks to the parts array it made for the artifact (copying it at every write
 *   cost O(n²) for n chunks committed one at a time), and each interim write's `interimText` gives the
 *   task as that write held it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { StoreUnavailableError } from "../../../src/runtime/stores/errors.js";
import type { TaskCommit } from "../../../src/runtime/stores/contract.js";
import { inProcessContext as ctx, modules, testCard, type ChunkPublisher as Events, type InProcessService as Service } from "../../support/servers.js";

type Json = Record<string, unknown>;

const tick = () => new Promise((r) => setTimeout(r, 0));
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0)) await step();
});

/**
 * Three chunks at once, a pause, then enough for the runtime to build the task's text from the parts'
 * texts (runtime/tasks/task-texts.ts, from 16 parts), a pause, two more, then completed.
 */
const CHUNKS = [["once ", "upon ", "a "], Array.from({ length: 20 }, (_, i) => `time ${i}, `), ["time, ", "the end"]];

/**
 * A service over `store` whose agent publishes `groups` of chunks (CHUNKS by default), pausing after each
 * group (and running `afterGroup` then), then completes. Push notifications are sent only with `push`.
 */
async function chunksService(
  store: InMemoryStore,
  afterGroup: (taskId: string, service: Service) => Promise<void> = async () => undefined,
  options: { groups?: readonly string[][]; push?: boolean } = {},
): Promise<Service> {
  const groups = options.groups ?? CHUNKS;
  const m = await modules("1.0.1");
  let service: Service | undefined;
  const core = m.core.createA2AServer({
    card: testCard("1.0.1") as never,
    executor: {
      async execute(c: { taskId: string }, events: Events) {
        events.working();
        let first = true;
        for (const group of groups) {
          for (const text of group) {
            events.artifact({ artifactId: "story", name: "story", parts: [events.textPart(text)] }, { append: !first, lastChunk: text === "the end" });
            first = false;
          }
          await tick();
          await afterGroup(c.taskId, service as Service);
        }
        events.completed("done");
      },
    } as never,
    store: store as never,
    ...(options.push ? {} : { pushNotifications: false }),
    logger: { error: () => undefined, warn: () => undefined },
  } as never);
  const made = (core as unknown as { service: Service }).service;
  service = made;
  cleanup.push(() => made.close());
  return made;
}

/**
 * Records every write `store` commits, as it is made: the write, its task's text and its push payloads'
 * texts then (the task may grow afterwards: a turn appends to its own parts in place). `before` runs
 * first and may throw, failing the write.
 */
function recordWrites(store: InMemoryStore, before?: (write: TaskCommit, index: number) => void) {
  const writes: Array<{ write: TaskCommit; text: string; pushes: string[] }> = [];
  const commit = store.tasks.commit.bind(store.tasks);
  store.tasks.commit = (write: TaskCommit) => {
    before?.(write, writes.length);
    writes.push({ write, text: JSON.stringify(write.task), pushes: (write.pushes ?? []).map((p) => JSON.stringify(p.payload)) });
    return commit(write);
  };
  return writes;
}

describe("artifact chunks published together (1.0.1 §3.1.2, §4.1)", () => {
  it("are all stored in order, each event keeps its own chunk, and nothing handed out changes later", async () => {
    const store = new InMemoryStore();
    const committed = recordWrites(store);
    const service = await chunksService(store);

    const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "tell me" }] };
    const received: Array<{ event: Json; text: string }> = [];
    for await (const event of await service.stream("SendStreamingMessage", { message }, ctx())) {
      received.push({ event: event as Json, text: JSON.stringify(event) });
    }

    const chunks = received.flatMap(({ event }) => (event["artifactUpdate"] ? [event["artifactUpdate"] as Json] : []));
    expect(chunks.map((c) => (c["artifact"] as { parts: Array<{ text: string }> }).parts.map((p) => p.text))).toEqual(CHUNKS.flat().map((t) => [t]));
    const taskId = (received[0]?.event["task"] as Json)["id"];
    const stored = (await service.call("GetTask", { id: taskId }, ctx())) as { artifacts: Array<{ parts: Array<{ text: string }> }> };
    expect(stored.artifacts).toHaveLength(1);
    expect(stored.artifacts[0]?.parts.map((p) => p.text)).toEqual(CHUNKS.flat());

    // The chunks came in at least two commits (else this test would not see an append across commits).
    const withStory = committed.filter(({ write }) => Array.isArray(write.task["artifacts"]) && write.task["artifacts"].length > 0);
    expect(withStory.length).toBeGreaterThanOrEqual(3);
    // Read now, after the stream: each write as it was written.
    for (const { write, text } of committed) expect(write.interimText ? write.interimText() : JSON.stringify(write.task)).toBe(text);
    expect(committed.filter(({ write }) => write.interimText !== undefined).length).toBeGreaterThanOrEqual(2);
    for (const { event, text } of received) expect(JSON.stringify(event)).toBe(text);
  });
});

describe("a stream's writes before the turn's last (TaskCommit.interim)", () => {
  /** Runs the CHUNKS agent over `store`, reading the task with GetTask between two groups of chunks. */
  async function run(store: InMemoryStore) {
    const recorded = recordWrites(store);
    const midway: unknown[] = [];
    const reread: unknown[] = [];
    const service = await chunksService(store, async (taskId, s) => {
      const read = (await s.call("GetTask", { id: taskId }, ctx())) as { artifacts?: Array<{ parts: unknown[] }> };
      midway.push(read.artifacts?.[0]?.parts.length);
      read.artifacts?.[0]?.parts.push({ text: "changed by a reader" }); // a reader's own value: the store keeps its object
      const again = (await s.call("GetTask", { id: taskId }, ctx())) as { artifacts?: Array<{ parts: unknown[] }> };
      reread.push(again.artifacts?.[0]?.parts.length);
    });
    const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "tell me" }] };
    const events: unknown[] = [];
    for await (const event of await service.stream("SendStreamingMessage", { message }, ctx())) events.push(event);
    const taskId = ((events[0] as Json)["task"] as Json)["id"];
    const final = (await service.call("GetTask", { id: taskId }, ctx())) as { artifacts: Array<{ parts: Array<{ text: string }> }> };
    // Each write as it was made (its text then: a task may grow after its write).
    const writes = recorded.map(({ write, text }) => {
      const task = JSON.parse(text) as { status: Json; artifacts?: Array<{ parts: unknown[] }> };
      return { interim: write.interim === true, hasText: write.text !== undefined, state: task.status["state"], parts: task.artifacts?.[0]?.parts.length ?? 0 };
    });
    return { writes, midway, reread, final };
  }

  it("with the memory store: sent without text and kept as objects; reads see every part so far; the last write has its text", async () => {
    const { writes, midway, reread, final } = await run(new InMemoryStore());
    const last = writes.at(-1);
    expect(last).toMatchObject({ interim: false, hasText: true, state: "TASK_STATE_COMPLETED" });
    const before = writes.slice(0, -1);
    expect(before.length).toBeGreaterThanOrEqual(3);
    for (const w of before) expect(w).toMatchObject({ interim: true, hasText: false });
    // GetTask between the groups: the parts committed so far (3, then 23, then 25), each read a value of its own.
    expect(midway).toEqual([3, 23, 25]);
    expect(reread).toEqual([3, 23, 25]);
    expect(final.artifacts[0]?.parts.map((p) => p.text)).toEqual(CHUNKS.flat());
  });

  it("with a store that does not keep interim writes as objects: every write has its text, as before", async () => {
    const store = new InMemoryStore();
    Object.defineProperty(store.tasks, "keepsInterimTasks", { value: false });
    const { writes, final } = await run(store);
    for (const w of writes) expect(w).toMatchObject({ interim: false, hasText: true });
    expect(final.artifacts[0]?.parts.map((p) => p.text)).toEqual(CHUNKS.flat());
  });
});

describe("a streamed artifact's parts, appended in place with a store that keeps interim writes", () => {
  /** One chunk per group: an agent that awaits each token, so that every chunk is a write of its own. */
  const TOKENS = Array.from({ length: 120 }, (_, i) => [`token ${i} `]);
  const message = { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "tell me" }] };

  const storyParts = (task: unknown) => ((task as { artifacts?: Array<{ parts: Array<{ text: string }> }> }).artifacts?.[0]?.parts ?? []).map((p) => p.text);

  it("a chunk per write: each write reads back as written, GetTask between chunks sees exactly the parts so far", async () => {
    const store = new InMemoryStore();
    const writes = recordWrites(store);
    const seen: number[] = [];
    const service = await chunksService(
      store,
      async (taskId, s) => {
        seen.push(storyParts(await s.call("GetTask", { id: taskId }, ctx())).length);
      },
      { groups: TOKENS },
    );
    const events: unknown[] = [];
    for await (const event of await service.stream("SendStreamingMessage", { message }, ctx())) events.push(event);
    const taskId = ((events[0] as Json)["task"] as Json)["id"];

    expect(seen).toEqual(TOKENS.map((_, i) => i + 1));
    expect(storyParts(await service.call("GetTask", { id: taskId }, ctx()))).toEqual(TOKENS.flat());
    const counts = writes.map(({ write, text }) => {
      expect(write.interimText ? write.interimText() : JSON.stringify(write.task)).toBe(text);
      return storyParts(JSON.parse(text)).length;
    });
    // A write per chunk (the task's creation and the working status before them, the completion after).
    expect(counts.filter((n, i) => n > 0 && n === (counts[i - 1] ?? 0) + 1).length).toBe(TOKENS.length);
    // Not a copy of the parts per write: from the second chunk on, every write's story has one parts array.
    const arrays = new Set(writes.slice(1).map(({ write }) => (write.task["artifacts"] as Array<{ parts: unknown[] }>)[0]?.parts));
    expect(arrays.size).toBe(1);
  });

  it("a write that fails and is tried again adds each chunk once", async () => {
    const store = new InMemoryStore();
    // The 7th write, then the one after its retry (each tried again after a pause of 100 ms).
    const failAt = new Set([6, 7]);
    const writes = recordWrites(store, (_write, index) => {
      // Thrown after the runtime applied the write's chunks (to the parts it appends to in place).
      if (failAt.delete(index)) throw new StoreUnavailableError("test", "connection lost");
    });
    const service = await chunksService(store, async () => undefined, { groups: TOKENS });
    const events: unknown[] = [];
    for await (const event of await service.stream("SendStreamingMessage", { message }, ctx())) events.push(event);
    const taskId = ((events[0] as Json)["task"] as Json)["id"];

    expect(failAt.size).toBe(0);
    expect(storyParts(await service.call("GetTask", { id: taskId }, ctx()))).toEqual(TOKENS.flat());
    for (const { write, text } of writes) expect(write.interimText ? write.interimText() : JSON.stringify(write.task)).toBe(text);
    const updates = events.flatMap((e) => ((e as Json)["artifactUpdate"] ? [(e as Json)["artifactUpdate"] as { artifact: { parts: Array<{ text: string }> } }] : []));
    expect(updates.flatMap((u) => u.artifact.parts.map((p) => p.text))).toEqual(TOKENS.flat());
  });

  it("a push notification carries the task as its write held it, not the parts appended later", async () => {
    const store = new InMemoryStore();
    const writes = recordWrites(store);
    let configured = false;
    const service = await chunksService(
      store,
      async (taskId) => {
        if (configured) return;
        configured = true;
        // Refused by the sender's SSRF guard at once (a private address): only the payloads matter here.
        await store.pushConfigs.set(taskId, { id: "hook", url: "http://127.0.0.1:1/hook" });
      },
      { groups: TOKENS.slice(0, 30), push: true },
    );
    for await (const _event of await service.stream("SendStreamingMessage", { message }, ctx()));

    const pushed = writes.filter(({ pushes }) => pushes.length > 0);
    expect(pushed.length).toBeGreaterThanOrEqual(25);
    for (const { write, text, pushes } of pushed) {
      // The payload as queued (kept by the outbox until delivered: 1.0 posts a StreamResponse) is the task
      // this write committed, and it is still that after the stream.
      expect((JSON.parse(pushes[0] as string) as Json)["task"]).toEqual(JSON.parse(text));
      expect(JSON.stringify((write.pushes ?? [])[0]?.payload)).toBe(pushes[0]);
    }
    // Some of them while the story grew (else this would not see a payload outlive its write).
    expect(new Set(pushed.map(({ text }) => storyParts(JSON.parse(text)).length)).size).toBeGreaterThanOrEqual(20);
  });
});
