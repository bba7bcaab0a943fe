/**
 * The server on an A2AStore, driven through the transport-free service of generated 1.0.1 code, with
 * two "instances" (two servers) on one store where the engine allows it:
 * - one execution per task, atomically (issue 16 item 2): concurrent messages to one task, on a store
 *   with real latency, are all applied in order, none lost, and their executions never overlap
 *   (1.0.1 §3.3.3: agents MAY accept more messages for a task in a non-terminal state);
 * - a stream on one instance sees every event committed on another, in order; each result carries its
 *   log sequence (the SSE `id:`), and a reconnect with Last-Event-ID (§3.1.6 SubscribeToTask) resumes
 *   after it with no gap and no duplicate;
 * - cancel on one instance stops the execution where it runs; an instance that dies holding a lease has
 *   its task failed by another, with a status message saying so, and its subscribers see that terminal
 *   event;
 * - a lost engine gives a clean -32603 (no stack, no hang);
 * - issue 15 on the store: SubscribeToTask on an input-required task stays open through the turn another
 *   instance runs, to the terminal state (1.0.1 §3.1.6); an A2A error raised before a follow-up turn's
 *   first event is the call's error and gives the execution lease back (the task keeps waiting).
 */
import { afterAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/runtime/stores/errors.js";
import type { A2AStore } from "../../../src/runtime/stores/memory.js";
import { slowStore } from "../../support/stores/slow.js";
import { modules, testCard } from "../../support/servers.js";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";

type Json = Record<string, unknown>;
interface Service {
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  stream(method: string, params: unknown, ctx: object): Promise<AsyncIterable<unknown>>;
  close(): Promise<void>;
}
interface Ctx {
  text: string;
  taskId: string;
  signal: AbortSignal;
}
interface Events {
  working(m?: string): void;
  completed(m?: string): void;
  inputRequired(m: string): void;
  artifact(a: Json): void;
  textPart(t: string): Json;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const headers = { "a2a-version": "1.0" };
const ctx = (extra: Record<string, string> = {}) => ({ headers: { ...headers, ...extra }, signal: new AbortController().signal, binding: "JSONRPC" });
const message = (text: string, over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...over });

/** What a "tick N held" execution waits on after its first tick (a test arms it with `hold()` and releases it). */
const hold = () => {
  let release = () => undefined as void;
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
};
let held = hold();

const { engines } = enginesUnderTest("the store runtime tests");
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/**
 * Counts overlapping executions; "ask" waits for input every turn; "tick N" streams N status updates ("tick N held"
 * waits for `releaseHeld` after its first tick, so a test can join before the rest is committed); "hang" runs
 * until aborted; "refuse" raises the version's A2AUnsupportedOperationError (a generated class) before any event.
 */
function executor(stats: { running: number; maxRunning: number; aborted: string[] }, errors: Record<string, unknown> = {}) {
  return {
    async execute(c: Ctx, events: Events) {
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      try {
        const text = c.text.trim();
        if (text === "refuse") throw new (errors.A2AUnsupportedOperationError as new (message?: string) => Error)("not now");
        if (text.startsWith("tick")) {
          const n = Number(text.split(" ")[1] ?? 3);
          for (let i = 1; i <= n; i++) {
            events.working(`tick ${i}`);
            await sleep(15);
            if (i === 1 && text.endsWith("held")) await held.promise;
          }
          events.completed("ticked");
          return;
        }
        if (text === "hang") {
          events.working("hanging");
          while (!c.signal.aborted) await sleep(5);
          stats.aborted.push(c.taskId);
          return;
        }
        await sleep(20);
        events.inputRequired(`got ${text}`);
      } finally {
        stats.running--;
      }
    },
  };
}

async function server(store: A2AStore, stats: { running: number; maxRunning: number; aborted: string[] }, options: Json = {}): Promise<Service> {
  const m = await modules("1.0.1");
  const core = m.core.createA2AServer({
    card: testCard("1.0.1") as never,
    executor: executor(stats, m.core as unknown as Record<string, unknown>) as never,
    store: store as never,
    pushNotifications: false,
    logger: { error: () => undefined, warn: () => undefined },
    ...options,
  } as never);
  const s = (core as unknown as { service: Service }).service;
  cleanup.push(() => s.close());
  return s;
}

const eventIds = async () => (await import("../../../generated/a2a-1.0.1/runtime/event-ids.js")) as { eventIdOf(v: unknown): string | undefined };
const stateOf = (event: unknown) => {
  const e = event as { task?: { status?: { state?: string } }; statusUpdate?: { status?: { state?: string; message?: { parts?: Array<{ text?: string }> } } } };
  return e.task?.status?.state ?? e.statusUpdate?.status?.state;
};
const textOf = (event: unknown) => (event as { statusUpdate?: { status?: { message?: { parts?: Array<{ text?: string }> } } } }).statusUpdate?.status?.message?.parts?.[0]?.text;

describe("one execution per task on a store with latency (issue 16 item 2)", () => {
  it("applies concurrent messages to one task in order, none lost, executions never overlapping", async () => {
    const stats = { running: 0, maxRunning: 0, aborted: [] as string[] };
    const { InMemoryStore } = await import("../../../src/runtime/stores/memory.js");
    const s = await server(slowStore(new InMemoryStore(), 5), stats);
    const task = ((await s.call("SendMessage", { message: message("first") }, ctx())) as { task: Json }).task;
    const sends = ["a", "b", "c"].map((t) => s.call("SendMessage", { message: message(t, { taskId: task.id }) }, ctx()));
    await Promise.all(sends);
    const final = (await s.call("GetTask", { id: task.id }, ctx())) as { history: Array<{ role: string; parts: Array<{ text: string }> }> };
    expect(final.history).toHaveLength(8);
    // user, agent, user, agent... : each turn whole, never interleaved.
    final.history.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? "ROLE_USER" : "ROLE_AGENT"));
    for (let i = 0; i < 8; i += 2) expect(final.history[i + 1]?.parts[0]?.text).toBe(`got ${final.history[i]?.parts[0]?.text}`);
    expect(final.history.filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text).sort()).toEqual(["a", "b", "c", "first"]);
    expect(stats.maxRunning).toBe(1);
  });
});

for (const engine of engines) {
  describe(`two instances on the ${engine.name} store`, () => {
    /** Two instances' stores over one fresh namespace (one store for the in-memory engine), closed and dropped after the test. */
    async function twoStores() {
      const ns = freshNamespace();
      const storeA = await engine.open(ns);
      const storeB = await engine.open(ns);
      cleanup.push(async () => {
        if (storeA !== storeB) await storeB.close();
        await storeA.close();
        await engine.drop(ns);
      });
      return { storeA, storeB };
    }

    async function pair(options: Json = {}) {
      const { storeA, storeB } = await twoStores();
      const stats = { running: 0, maxRunning: 0, aborted: [] as string[] };
      const a = await server(storeA, stats, { instanceId: "A", ...options });
      const b = await server(storeB, stats, { instanceId: "B", ...options });
      return { a, b, stats, storeA, storeB };
    }

    it("applies concurrent messages sent to one task through both instances, in some order, none lost", async () => {
      const { a, b, stats } = await pair();
      const task = ((await a.call("SendMessage", { message: message("first") }, ctx())) as { task: Json }).task;
      await Promise.all([
        a.call("SendMessage", { message: message("a1", { taskId: task.id }) }, ctx()),
        b.call("SendMessage", { message: message("b1", { taskId: task.id }) }, ctx()),
        a.call("SendMessage", { message: message("a2", { taskId: task.id }) }, ctx()),
        b.call("SendMessage", { message: message("b2", { taskId: task.id }) }, ctx()),
      ]);
      const final = (await b.call("GetTask", { id: task.id }, ctx())) as { history: Array<{ role: string; parts: Array<{ text: string }> }> };
      expect(final.history).toHaveLength(10);
      final.history.forEach((m, i) => expect(m.role).toBe(i % 2 === 0 ? "ROLE_USER" : "ROLE_AGENT"));
      expect(final.history.filter((m) => m.role === "ROLE_USER").map((m) => m.parts[0]?.text).sort()).toEqual(["a1", "a2", "b1", "b2", "first"]);
      expect(stats.maxRunning).toBe(1);
    });

    it("streams on one instance every event committed on the other, in order, with its sequence as the SSE id; Last-Event-ID resumes with no gap and no duplicate", async () => {
      const { a, b } = await pair();
      const { eventIdOf } = await eventIds();
      // A holds after its first tick until B has joined: on a loaded machine A could otherwise finish before B's
      // first events, and the resume below would have nothing left to resume.
      held = hold();
      const started = await a.stream("SendStreamingMessage", { message: message("tick 6 held") }, ctx());
      const iterator = started[Symbol.asyncIterator]();
      const first = (await iterator.next()).value as { task: Json };
      const taskId = String(first.task.id);
      // B follows the task A runs, and leaves after two events.
      const seen: Array<{ id: string | undefined; event: unknown }> = [];
      const follower = await b.stream("SubscribeToTask", { id: taskId }, ctx());
      for await (const event of follower) {
        seen.push({ id: eventIdOf(event), event });
        console.log("B got", stateOf(event), textOf(event)); if (seen.length === 1) held.release();
        if (seen.length === 3) break;
      }
      const lastId = seen[seen.length - 1]?.id;
      expect(lastId).toMatch(/^\d+$/);
      // The reconnect names the last id it received: the rest, from the next event on.
      const resumed: Array<{ id: string | undefined; event: unknown }> = [];
      for await (const event of await b.stream("SubscribeToTask", { id: taskId }, ctx({ "last-event-id": String(lastId) }))) { console.log("R", stateOf(event), textOf(event)); resumed.push({ id: eventIdOf(event), event }); }
      const all: Array<{ id: string | undefined; event: unknown }> = [{ id: eventIdOf(first), event: first }];
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) console.log("A", stateOf(next.value), textOf(next.value)), all.push({ id: eventIdOf(next.value), event: next.value });
      // A's own stream: the task, six ticks, completed; ids strictly increasing.
      expect(all.map((e) => stateOf(e.event))).toEqual(["TASK_STATE_SUBMITTED", ...Array(6).fill("TASK_STATE_WORKING"), "TASK_STATE_COMPLETED"]);
      const ids = all.map((e) => Number(e.id));
      ids.slice(1).forEach((id, i) => expect(id).toBeGreaterThan(ids[i] as number));
      // B's events after the first (its task snapshot) and the resumed ones are exactly A's, from where B joined.
      const joined = [...seen.slice(1), ...resumed];
      const fromA = all.filter((e) => Number(e.id) > Number(seen[0]?.id));
      expect(joined.map((e) => e.id)).toEqual(fromA.map((e) => e.id));
      expect(joined.map((e) => textOf(e.event) ?? stateOf(e.event))).toEqual(fromA.map((e) => textOf(e.event) ?? stateOf(e.event)));
      expect(stateOf(resumed.at(-1)?.event)).toBe("TASK_STATE_COMPLETED");
      // A reconnect after the end of a finished task: nothing more, no error.
      const after: unknown[] = [];
      for await (const event of await b.stream("SubscribeToTask", { id: taskId }, ctx({ "last-event-id": String(ids.at(-1)) }))) after.push(event);
      expect(after).toEqual([]);
    });

    it("SubscribeToTask on an input-required task follows the turn another instance runs until the terminal state (1.0.1 §3.1.6)", async () => {
      const { a, b } = await pair();
      const task = ((await a.call("SendMessage", { message: message("ask") }, ctx())) as { task: Json }).task;
      expect(stateOf({ task })).toBe("TASK_STATE_INPUT_REQUIRED");
      const subscription = await b.stream("SubscribeToTask", { id: task.id }, ctx());
      const events: unknown[] = [];
      const following = (async () => {
        for await (const event of subscription) events.push(event);
      })();
      await sleep(50);
      // The stream stays open while the task waits for the client; the answer's turn (on A) is followed to its end.
      expect(events.map(stateOf)).toEqual(["TASK_STATE_INPUT_REQUIRED"]);
      await a.call("SendMessage", { message: message("tick 2", { taskId: task.id }) }, ctx());
      await following;
      expect(events.map(stateOf)).toEqual(["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_WORKING", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]);
    });

    it("an A2A error raised before a follow-up turn's first event is the call's error; the task keeps waiting, its lease given back", async () => {
      const { a, b } = await pair({ leaseMs: 300 });
      const task = ((await a.call("SendMessage", { message: message("ask") }, ctx())) as { task: Json }).task;
      await expect(a.call("SendMessage", { message: message("refuse", { taskId: task.id }) }, ctx())).rejects.toMatchObject({ code: -32004, message: "not now" });
      // Past the lease time: no instance took the task over (it would have failed it).
      await sleep(900);
      expect(await b.call("GetTask", { id: task.id }, ctx())).toMatchObject({ status: { state: "TASK_STATE_INPUT_REQUIRED" } });
      // The lease is free: another instance runs the next turn at once.
      const started = Date.now();
      const answered = ((await b.call("SendMessage", { message: message("tick 1", { taskId: task.id }) }, ctx())) as { task: Json }).task;
      expect(stateOf({ task: answered })).toBe("TASK_STATE_COMPLETED");
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it("cancel on one instance aborts the execution on the other (it loses the lease)", async () => {
      const { a, b, stats } = await pair({ leaseMs: 600 });
      const task = ((await a.call("SendMessage", { message: message("hang"), configuration: { returnImmediately: true } }, ctx())) as { task: Json }).task;
      await sleep(50);
      const canceled = (await b.call("CancelTask", { id: task.id }, ctx())) as { status: { state: string } };
      expect(canceled.status.state).toBe("TASK_STATE_CANCELED");
      const until = Date.now() + 5_000;
      while (!stats.aborted.includes(String(task.id)) && Date.now() < until) await sleep(20);
      expect(stats.aborted).toContain(String(task.id));
      expect(await a.call("GetTask", { id: task.id }, ctx())).toMatchObject({ status: { state: "TASK_STATE_CANCELED" } });
    });

    it("fails the task of an instance that died holding its lease, and its subscribers get that terminal event", async () => {
      const { storeA, storeB } = await twoStores();
      const stats = { running: 0, maxRunning: 0, aborted: [] as string[] };
      const dying = killable(storeA);
      const a = await server(dying.store, stats, { instanceId: "A", leaseMs: 500 });
      const b = await server(storeB, stats, { instanceId: "B", leaseMs: 500 });
      const task = ((await a.call("SendMessage", { message: message("hang"), configuration: { returnImmediately: true } }, ctx())) as { task: Json }).task;
      const events: unknown[] = [];
      const following = (async () => {
        for await (const event of await b.stream("SubscribeToTask", { id: task.id }, ctx())) events.push(event);
      })();
      await sleep(100);
      dying.kill(); // A can no longer reach the engine: it cannot renew, it is as good as dead.
      const started = Date.now();
      await following;
      expect(Date.now() - started).toBeLessThan(5_000);
      const last = events.at(-1) as { statusUpdate: { status: { state: string; message: { parts: Array<{ text: string }> } } } };
      expect(last.statusUpdate.status.state).toBe("TASK_STATE_FAILED");
      expect(last.statusUpdate.status.message.parts[0]?.text).toMatch(/instance running this task \(A\) stopped/);
      expect(await b.call("GetTask", { id: task.id }, ctx())).toMatchObject({ status: { state: "TASK_STATE_FAILED" } });
    });
  });
}

describe("a resumable executor", () => {
  it("runs the turn of a dead instance again on the instance that takes its lease over", async () => {
    const { InMemoryStore } = await import("../../../src/runtime/stores/memory.js");
    const shared = new InMemoryStore();
    const dying = killable(shared);
    const m = await modules("1.0.1");
    const resumable = {
      resumable: true,
      async execute(c: Ctx & { method: string }, events: Events) {
        if (c.method === "resume") {
          events.completed(`resumed ${c.text}`);
          return;
        }
        events.working("started");
        while (!c.signal.aborted) await sleep(5);
      },
    };
    const make = (store: A2AStore, instanceId: string) => {
      const core = m.core.createA2AServer({ card: testCard("1.0.1") as never, executor: resumable as never, store: store as never, instanceId, leaseMs: 400, pushNotifications: false, logger: { error: () => undefined, warn: () => undefined } } as never);
      const s = (core as unknown as { service: Service }).service;
      cleanup.push(() => s.close());
      return s;
    };
    const a = make(dying.store, "A");
    const b = make(shared, "B");
    const task = ((await a.call("SendMessage", { message: message("job"), configuration: { returnImmediately: true } }, ctx())) as { task: Json }).task;
    const events: unknown[] = [];
    const following = (async () => {
      for await (const event of await b.stream("SubscribeToTask", { id: task.id }, ctx())) events.push(event);
    })();
    await sleep(50);
    dying.kill();
    await following;
    expect(stateOf(events.at(-1))).toBe("TASK_STATE_COMPLETED");
    expect(textOf(events.at(-1))).toBe("resumed job");
    dying.revive();
  });
});

describe("a lost engine", () => {
  it("answers -32603 with a clear message (no stack, no hang), and serves again once the engine is back", async () => {
    const { InMemoryStore } = await import("../../../src/runtime/stores/memory.js");
    const engine = killable(new InMemoryStore());
    const errors: unknown[] = [];
    const m = await modules("1.0.1");
    const core = m.core.createA2AServer({
      card: testCard("1.0.1") as never,
      executor: executor({ running: 0, maxRunning: 0, aborted: [] }) as never,
      store: engine.store as never,
      pushNotifications: false,
      logger: { error: (msg: string) => errors.push(msg), warn: () => undefined },
    } as never);
    const s = (core as unknown as { service: Service }).service;
    cleanup.push(() => s.close());
    const task = ((await s.call("SendMessage", { message: message("first") }, ctx())) as { task: Json }).task;
    engine.kill();
    for (const call of [s.call("GetTask", { id: task.id }, ctx()), s.call("ListTasks", {}, ctx()), s.call("SendMessage", { message: message("x") }, ctx())]) {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string; data?: unknown },
      );
      expect(error).toMatchObject({ code: -32603, message: "The task store is unavailable; try again later" });
      expect(JSON.stringify(error)).not.toMatch(/at .*\.ts|stack/);
    }
    expect(errors.length).toBeGreaterThan(0);
    engine.revive();
    expect(await s.call("GetTask", { id: task.id }, ctx())).toMatchObject({ id: task.id });
  });
});

/** A store whose every call fails with StoreUnavailableError after `kill()` (until `revive()`). */
function killable(store: A2AStore): { store: A2AStore; kill(): void; revive(): void } {
  let dead = false;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value: unknown = Reflect.get(object, key, receiver);
        if (typeof value !== "function" || key === "constructor") return value;
        if (key === "subscribe") return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(object, args);
        return async (...args: unknown[]) => {
          if (dead) throw new StoreUnavailableError("test", "connection lost");
          return (value as (...a: unknown[]) => unknown).apply(object, args);
        };
      },
    });
  return {
    store: {
      engine: store.engine,
      tasks: wrap(store.tasks),
      pushConfigs: wrap(store.pushConfigs),
      events: wrap(store.events),
      outbox: wrap(store.outbox),
      leases: wrap(store.leases),
      purgeFinished: (o) => store.purgeFinished(o),
      close: () => store.close(),
    },
    kill: () => void (dead = true),
    revive: () => void (dead = false),
  };
}
