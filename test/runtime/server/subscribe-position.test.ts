/**
 * Where a subscription to a running task starts (1.0.1 §3.1.6 SubscribeToTask: the task first, then its
 * updates): right after the last event the task it sends holds. Read apart, the log's end then the task,
 * an update committed in between was in both: its chunk reached the subscriber twice (in the task, and as
 * an `append` after it), and the artifact the subscriber builds had it twice. The stores read the task and
 * its log position in one step (`VersionedTask.logSeq`); a store without it still loses nothing.
 */
import { afterAll, describe, expect, it } from "vitest";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { inProcessContext as ctx, modules, streamedArtifact, testCard, type ChunkPublisher, type InProcessService } from "../../support/servers.js";

type Json = Record<string, unknown>;
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0)) await step();
});

/** A promise and its resolver. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * Runs an agent that publishes "one ", waits, "two ", waits, then completes, over `store`, and subscribes
 * to the task after "one " was committed; "two " is committed while the subscription starts.
 */
async function subscribeMidway(store: InMemoryStore, withLogSeq: boolean): Promise<{ texts: string[]; state: unknown }> {
  const m = await modules("1.0.1");
  const second = gate();
  const third = gate();
  const committed = gate();
  const core = m.core.createA2AServer({
    card: testCard("1.0.1") as never,
    executor: {
      async execute(_c: unknown, events: ChunkPublisher) {
        events.working();
        events.artifact({ artifactId: "a", parts: [events.textPart("one ")] });
        await second.opened;
        events.artifact({ artifactId: "a", parts: [events.textPart("two ")] }, { append: true });
        await third.opened;
        events.completed("done");
      },
    } as never,
    store: store as never,
    pushNotifications: false,
  } as never);
  const service = (core as unknown as { service: InProcessService }).service;
  cleanup.push(() => service.close());

  // Once "two " is in the store, `committed` opens.
  const commit = store.tasks.commit.bind(store.tasks);
  store.tasks.commit = async (write) => {
    const result = await commit(write);
    if (JSON.stringify(write.task).includes("two ")) committed.open();
    return result;
  };
  // "two " is committed at the first of: after the runtime read the log's end (when it reads it apart),
  // after its load of the task (it then holds "one " only).
  let letIn = false;
  const letTwoIn = async () => {
    if (letIn) return;
    letIn = true;
    second.open();
    await committed.opened;
  };
  const end = store.events.end.bind(store.events);
  store.events.end = async (id) => {
    const at = await end(id);
    await letTwoIn();
    return at;
  };
  const load = store.tasks.load.bind(store.tasks);
  store.tasks.load = async (id) => {
    const loaded = await load(id);
    // A store of one's own that gives no log position.
    if (loaded && !withLogSeq) delete loaded.logSeq;
    if (loaded && loaded.task["artifacts"] !== undefined) await letTwoIn();
    return loaded;
  };

  const message = { messageId: `m-${withLogSeq}`, role: "ROLE_USER", parts: [{ text: "go" }] };
  const turn = (await service.stream("SendStreamingMessage", { message }, ctx()))[Symbol.asyncIterator]();
  let taskId: string | undefined;
  // Until "one " is committed (its event streamed).
  for (;;) {
    const { value } = await turn.next();
    const event = value as { task?: Json; artifactUpdate?: Json };
    taskId ??= (event.task?.["id"] ?? event.artifactUpdate?.["taskId"]) as string | undefined;
    if (event.artifactUpdate) break;
  }
  const subscription = await service.stream("SubscribeToTask", { id: taskId }, ctx());
  third.open();
  const followed = streamedArtifact(subscription);
  for (let next = await turn.next(); !next.done; next = await turn.next());
  const { texts, state } = await followed;
  return { texts, state };
}

describe("a subscription that starts while a chunk is being committed (1.0.1 §3.1.6)", () => {
  it("with the task's log position read with it (logSeq): the artifact the subscriber builds has each chunk once", async () => {
    expect(await subscribeMidway(new InMemoryStore(), true)).toEqual({ texts: ["one ", "two "], state: "TASK_STATE_COMPLETED" });
  });

  it("with a store that gives no logSeq: the chunk committed in between is not lost (it may come twice)", async () => {
    const { texts, state } = await subscribeMidway(new InMemoryStore(), false);
    expect(state).toBe("TASK_STATE_COMPLETED");
    expect(new Set(texts)).toEqual(new Set(["one ", "two "]));
  });
});
