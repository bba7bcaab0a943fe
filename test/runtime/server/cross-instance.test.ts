/**
 * Issue 30: cross-instance correctness, with two servers (two TaskRuntimes) sharing one store — memory
 * always, PostgreSQL and Redis when their URLs are set (test/support/stores/engines-under-test.ts) — driven through the
 * transport-free service of generated 1.0.1 code. The three reproductions of the issue, made
 * deterministic with store wrappers that hold or fail one instance's writes:
 * 1. a terminal state is final: a cancel committed on B while A's chunk write is in flight (and a chunk and
 *    `completed()` queue behind it) stays CANCELED, with no event after it; A's executor is told (aborted);
 * 2. every commit is applied once: the push config save failing once (engine restarting) right after a new
 *    task's first commit does not apply the batch again; the config is saved and its webhook fires;
 * 3. CancelTask's answer is the truth (1.0.1 §3.1.5, 0.3.0 §7.4: "the task might have already completed"):
 *    against tasks written every 5 ms from another instance, every answer agrees with the store's final state.
 * And take-over covers every turn: a follow-up turn lost with its instance before its first event is failed
 * with a status message, and a new turn waits for that take-over instead of starting on top of it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { overriding } from "../../support/stores/overriding.js";
import { StoreUnavailableError } from "../../../src/runtime/stores/errors.js";
import type { A2AStore, LoggedEvent, TaskCommit } from "../../../src/runtime/stores/contract.js";
import { slowStore } from "../../support/stores/slow.js";
import { modules, testCard } from "../../support/servers.js";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";

type Json = Record<string, unknown>;
interface Service {
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  close(): Promise<void>;
}
interface Ctx {
  text: string;
  taskId: string;
  signal: AbortSignal;
  method: string;
}
interface Events {
  working(m?: string): void;
  completed(m?: string): void;
  inputRequired(m: string): void;
  artifact(a: Json, options?: { append?: boolean; lastChunk?: boolean }): void;
  textPart(t: string): Json;
}
type Executor = { execute(c: Ctx, events: Events): Promise<void> };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ctx = () => ({ headers: { "a2a-version": "1.0" }, signal: new AbortController().signal, binding: "JSONRPC" });
let messages = 0;
const message = (text: string, over: Json = {}) => ({ messageId: `m-${++messages}`, role: "ROLE_USER", parts: [{ text }], ...over });
const stateOf = (task: unknown) => (task as { status?: { state?: string } }).status?.state;
const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_CANCELED", "TASK_STATE_FAILED", "TASK_STATE_REJECTED"];

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A store whose `tasks.commit` and `pushConfigs.set` go through the given hooks (everything else as it is). */
function hooked(
  store: A2AStore,
  hooks: {
    commit?: (write: TaskCommit, next: (write: TaskCommit) => Promise<{ version: number; sequences: number[] }>) => Promise<{ version: number; sequences: number[] }>;
    setPushConfig?: (taskId: string, config: Json, next: () => Promise<unknown>) => Promise<unknown>;
  },
): A2AStore {
  return {
    engine: store.engine,
    tasks: overriding(store.tasks, { commit: hooks.commit && ((write: TaskCommit) => hooks.commit!(write, (w) => store.tasks.commit(w))) }),
    pushConfigs: overriding(store.pushConfigs, {
      set: hooks.setPushConfig && ((taskId: string, config: Json) => hooks.setPushConfig!(taskId, config, () => store.pushConfigs.set(taskId, config))),
    }),
    events: store.events,
    outbox: store.outbox,
    leases: store.leases,
    purgeFinished: (options) => store.purgeFinished(options),
    close: () => store.close(),
  };
}

async function server(store: A2AStore, instanceId: string, executor: Executor, logs: string[] = [], options: Json = {}): Promise<Service> {
  const m = await modules("1.0.1");
  const core = m.core.createA2AServer({
    card: testCard("1.0.1") as never,
    executor: executor as never,
    store: store as never,
    instanceId,
    pushNotifications: { allow: ["127.0.0.1"], retries: 0, backoffMs: 10, timeoutMs: 2000 },
    logger: { error: (msg: string) => logs.push(msg), warn: (msg: string) => logs.push(msg) },
    ...options,
  } as never);
  const s = (core as unknown as { service: Service }).service;
  cleanup.push(() => s.close());
  return s;
}

/** Every event a task's log gets from now on (a subscription: the in-memory log keeps a followed task's events). */
function record(store: A2AStore, taskId: string): { events: LoggedEvent[]; close(): void } {
  const events: LoggedEvent[] = [];
  const subscription = store.events.subscribe(taskId, (logged) => events.push(logged), { after: 0 });
  subscription.ready.catch(() => undefined);
  cleanup.push(async () => subscription.close());
  return { events, close: () => subscription.close() };
}

/** The states of the status-carrying events of a log, in order. */
const statesIn = (events: readonly LoggedEvent[]) => events.map((e) => stateOf(e.event)).filter((s): s is string => typeof s === "string");

/** Polls until `check` holds (or gives up after `ms`); the assertions that follow say what was wrong. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check()) && Date.now() < end) await sleep(10);
}

/** The state a task's log ends with, and whether anything was logged after its first terminal event. */
function terminalIsFinal(events: readonly LoggedEvent[]): { first: string | undefined; after: number } {
  const at = events.findIndex((e) => TERMINAL.includes(stateOf(e.event) ?? ""));
  return { first: at < 0 ? undefined : stateOf(events[at]?.event), after: at < 0 ? 0 : events.length - at - 1 };
}

const { engines } = enginesUnderTest();

for (const engine of engines) {
  describe(`two instances on the ${engine.name} store (issue 30)`, () => {
    /** Two instances' stores over one fresh namespace (one store for the in-memory engine). */
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

    it("a cancel committed on B while A's chunk write is in flight stays CANCELED: A's queued chunk and completed() are dropped, its executor aborted (1.0.1 §3.1.5)", async () => {
      const { storeA, storeB } = await twoStores();
      let hold: { entered: () => void; released: Promise<void> } | undefined;
      let entered!: () => void;
      const inFlight = new Promise<void>((r) => (entered = r));
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let heldDone!: () => void;
      const heldCommitSettled = new Promise<void>((r) => (heldDone = r));
      hold = { entered, released };
      // A's first write carrying an artifact is held before it reaches the store.
      const gated = hooked(storeA, {
        commit: async (write, next) => {
          const artifacts = (write.task as Json).artifacts;
          if (hold && Array.isArray(artifacts) && artifacts.length > 0) {
            const h = hold;
            hold = undefined;
            h.entered();
            await h.released;
            try {
              return await next(write);
            } finally {
              heldDone();
            }
          }
          return next(write);
        },
      });
      let aborted = false;
      const logsA: string[] = [];
      const a = await server(gated, "A", {
        async execute(c, events) {
          events.artifact({ artifactId: "out", parts: [events.textPart("c1")] });
          await inFlight;
          // Queued behind the write in flight.
          events.artifact({ artifactId: "out", parts: [events.textPart("c2")] }, { append: true });
          events.completed("done");
          await until(() => c.signal.aborted, 3_000);
          aborted = c.signal.aborted;
        },
      }, logsA);
      const b = await server(storeB, "B", { async execute() {} });
      const task = ((await a.call("SendMessage", { message: message("race"), configuration: { returnImmediately: true } }, ctx())) as { task: Json }).task;
      const taskId = String(task.id);
      const log = record(storeB, taskId);
      await inFlight;
      const answer = (await b.call("CancelTask", { id: taskId }, ctx())) as Json;
      expect(stateOf(answer)).toBe("TASK_STATE_CANCELED");
      release();
      await heldCommitSettled;
      await until(() => aborted);
      // A's chain has run out (its executor returned after the abort); what it would write is written by now.
      await sleep(100);
      expect(aborted).toBe(true);
      const stored = (await storeB.tasks.load(taskId))!.task as Json & { artifacts?: Array<{ parts: Json[] }> };
      expect(stateOf(stored)).toBe("TASK_STATE_CANCELED");
      expect(stored.artifacts ?? []).toEqual([]);
      expect(stateOf(await b.call("GetTask", { id: taskId }, ctx()))).toBe("TASK_STATE_CANCELED");
      await until(() => statesIn(log.events).includes("TASK_STATE_CANCELED"));
      expect(terminalIsFinal(log.events)).toEqual({ first: "TASK_STATE_CANCELED", after: 0 });
      expect(logsA.join("\n")).toMatch(new RegExp(`task ${taskId} is TASK_STATE_CANCELED`));
      log.close();
    });

    it("a push config save failing once right after a new task's first commit applies the batch once; the config is saved and its webhook fires", async () => {
      const { storeA, storeB } = await twoStores();
      const hook = await webhook();
      let failures = 0;
      const flaky = hooked(storeA, {
        setPushConfig: async (_taskId, _config, next) => {
          if (failures++ === 0) throw new StoreUnavailableError("test", "engine restarting");
          return next();
        },
      });
      const a = await server(flaky, "A", {
        async execute(_c, events) {
          events.artifact({ artifactId: "out", parts: [events.textPart("one")] });
          await sleep(20);
          events.completed("the agent's answer");
        },
      });
      const b = await server(storeB, "B", { async execute() {} });
      const answered = ((await a.call("SendMessage", { message: message("go"), configuration: { taskPushNotificationConfig: { url: hook.url, token: "tok" } } }, ctx())) as { task: Json }).task;
      const taskId = String(answered.id);
      const stored = (await b.call("GetTask", { id: taskId }, ctx())) as { history: Array<{ role: string; parts: Array<{ text?: string }> }>; artifacts: Array<{ parts: Json[] }> };
      expect(stateOf(stored)).toBe("TASK_STATE_COMPLETED");
      expect(stored.history.map((m) => `${m.role}:${m.parts[0]?.text}`)).toEqual(["ROLE_USER:go", "ROLE_AGENT:the agent's answer"]);
      expect(stored.artifacts).toHaveLength(1);
      expect(stored.artifacts[0]?.parts).toHaveLength(1);
      expect(failures).toBe(2);
      expect((await storeB.pushConfigs.list(taskId)).map((c) => (c as Json).url)).toEqual([hook.url]);
      await until(() => hook.states(taskId).includes("TASK_STATE_COMPLETED"));
      expect(hook.states(taskId)).toContain("TASK_STATE_COMPLETED");
    });

    it("every CancelTask answer agrees with the store against tasks written every 5 ms from another instance (1.0.1 §3.1.5: CANCELED only when canceled; TaskNotCancelable when it completed first)", async () => {
      const { storeA, storeB } = await twoStores();
      const a = await server(storeA, "A", {
        async execute(c, events) {
          const n = Number(c.text.split(" ")[1]);
          for (let i = 0; i < n && !c.signal.aborted; i++) {
            events.working();
            await sleep(5);
          }
          events.completed("written");
        },
      });
      // B's store calls take a little longer (a network between it and the engine): its cancels meet A's writes.
      const b = await server(engine.name === "memory" ? slowStore(storeB, 1) : storeB, "B", { async execute() {} });
      const tasks = await Promise.all(
        Array.from({ length: 12 }, async (_, i) => ((await a.call("SendMessage", { message: message(`write ${i % 2 === 0 ? 100 : 30}`), configuration: { returnImmediately: true } }, ctx())) as { task: Json }).task),
      );
      const logs = tasks.map((t) => record(storeB, String(t.id)));
      // Cancels spread from the start of the writes to past the end of the short ones (30 writes ≈ 150–300 ms; 100 writes, 500 ms and more).
      const answers = await Promise.all(
        tasks.map(async (t, i) => {
          await sleep(i * 30);
          return b.call("CancelTask", { id: t.id }, ctx()).then(
            (task) => ({ ok: true as const, state: stateOf(task) }),
            (error: { code: number; message: string }) => ({ ok: false as const, code: error.code, message: error.message }),
          );
        }),
      );
      await until(async () => (await Promise.all(tasks.map(async (t) => stateOf((await storeB.tasks.load(String(t.id)))!.task)))).every((s) => TERMINAL.includes(s ?? "")));
      await sleep(100);
      let canceled = 0;
      for (const [i, t] of tasks.entries()) {
        const final = stateOf((await storeB.tasks.load(String(t.id)))!.task);
        const answer = answers[i]!;
        if (answer.ok) {
          // Success only for a cancel the store holds (1.0.1 §3.1.5 "Updated Task with cancellation status").
          expect(answer.state, `task ${i}`).toBe("TASK_STATE_CANCELED");
          expect(final, `task ${i}`).toBe("TASK_STATE_CANCELED");
          canceled++;
        } else if (answer.code === -32002) {
          // TaskNotCancelableError: it reached another terminal state first.
          expect(final, `task ${i}`).not.toBe("TASK_STATE_CANCELED");
          expect(TERMINAL).toContain(final);
        } else {
          // A retryable error (engine unavailable, the task changing at every try): not a success.
          expect(answer, `task ${i}`).toMatchObject({ code: -32603, message: expect.stringMatching(/try again/) });
        }
        expect(terminalIsFinal(logs[i]!.events).after, `task ${i}: events after its terminal one`).toBe(0);
        logs[i]!.close();
      }
      expect(canceled).toBeGreaterThan(0);
    });

    it("a follow-up turn lost with its instance before its first event is failed by take-over; a new turn waits for that instead of starting on top of it", async () => {
      const { storeA, storeB } = await twoStores();
      const dead = { a: false };
      // A dies as its follow-up turn starts: the turn's commit is made (message appended, lease taken), then nothing.
      const dying = hooked(storeA, {
        commit: async (write, next) => {
          if (dead.a) throw new StoreUnavailableError("test", "instance gone");
          const made = await next(write);
          const history = (write.task as Json).history as Json[] | undefined;
          if (write.lease && "acquire" in write.lease && (history?.length ?? 0) > 2) dead.a = true;
          return made;
        },
      });
      const gone = new Promise<void>(() => undefined);
      const turns = { a: 0, b: 0 };
      const ask: (who: "a" | "b") => Executor = (who) => ({
        async execute(c, events) {
          turns[who]++;
          if (c.text === "first") return events.inputRequired("more?");
          if (who === "a") await gone; // A is dead: its executor never gets to publish.
          events.completed(`answered ${c.text}`);
        },
      });
      const a = await server(dying, "A", ask("a"), [], { leaseMs: 300 });
      const b = await server(storeB, "B", ask("b"), [], { leaseMs: 300 });
      const task = ((await a.call("SendMessage", { message: message("first") }, ctx())) as { task: Json }).task;
      expect(stateOf(task)).toBe("TASK_STATE_INPUT_REQUIRED");
      await a.call("SendMessage", { message: message("lost", { taskId: task.id }), configuration: { returnImmediately: true } }, ctx());
      expect(dead.a).toBe(true);
      await a.close(); // no lease upkeep, no take-over from A any more
      // B's new turn must not start on top of A's abandoned one: it waits for take-over, which fails the task.
      const next = await b.call("SendMessage", { message: message("next", { taskId: task.id }) }, ctx()).then(
        (r) => ({ ok: true as const, result: r }),
        (error: { code: number; message: string }) => ({ ok: false as const, error }),
      );
      const final = (await storeB.tasks.load(String(task.id)))!.task as Json & { status: { message?: { parts: Array<{ text: string }> } }; history: Array<{ parts: Array<{ text?: string }> }> };
      expect(stateOf(final)).toBe("TASK_STATE_FAILED");
      expect(final.status.message?.parts[0]?.text).toMatch(/instance running this task \(A\) stopped/);
      expect(next.ok).toBe(false);
      expect(final.history.map((m) => m.parts[0]?.text)).not.toContain("next");
      expect(turns.b).toBe(0);
    });
  });
}

describe("0.3.0 tasks/cancel across instances (issue 30)", () => {
  it("answers TaskNotCancelableError (-32002) when the task completed on another instance while the cancel was being written, not the completed task (0.3.0 §7.4: 'the task might have already completed')", async () => {
    const m = await modules("0.3.0");
    const shared = new (await import("../../../src/runtime/stores/memory.js")).InMemoryStore();
    let finish!: () => void;
    const finishing = new Promise<void>((r) => (finish = r));
    let entered!: () => void;
    const cancelInFlight = new Promise<void>((r) => (entered = r));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    // B's first write (its cancel) is held before it reaches the store.
    let held = false;
    const gatedB = hooked(shared, {
      commit: async (write, next) => {
        if (!held) {
          held = true;
          entered();
          await released;
        }
        return next(write);
      },
    });
    const make = (store: A2AStore, instanceId: string) => {
      const core = m.core.createA2AServer({
        card: testCard("0.3.0") as never,
        executor: {
          async execute(_c: Ctx, events: Events) {
            events.working();
            await finishing;
            events.completed("done");
          },
        } as never,
        store: store as never,
        instanceId,
        pushNotifications: false,
        logger: { error: () => undefined, warn: () => undefined },
      } as never);
      const s = (core as unknown as { service: Service }).service;
      cleanup.push(() => s.close());
      return s;
    };
    const a = make(shared, "A");
    const b = make(gatedB, "B");
    const ctx030 = () => ({ headers: {}, signal: new AbortController().signal, binding: "JSONRPC" });
    const sent = (await a.call("message/send", { message: { kind: "message", role: "user", messageId: "m-030", parts: [{ kind: "text", text: "go" }] }, configuration: { blocking: false } }, ctx030())) as Json;
    const taskId = String(sent.id);
    const cancel = b.call("tasks/cancel", { id: taskId }, ctx030()).then(
      (task) => ({ ok: true as const, task }),
      (error: { code: number }) => ({ ok: false as const, code: error.code }),
    );
    await cancelInFlight;
    finish();
    await until(async () => stateOf((await shared.tasks.load(taskId))?.task) === "completed");
    release();
    const answer = await cancel;
    expect(stateOf((await shared.tasks.load(taskId))?.task)).toBe("completed");
    expect(answer).toEqual({ ok: false, code: -32002 });
  });
});

/** A webhook receiver on 127.0.0.1: the task states each task's notifications carried. */
async function webhook(): Promise<{ url: string; states(taskId: string): string[] }> {
  const received: Json[] = [];
  const http: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      try {
        received.push(JSON.parse(body) as Json);
      } catch {
        // not JSON: not one of ours
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  cleanup.push(() => new Promise<void>((r) => http.close(() => r())));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/hook`,
    states: (taskId) =>
      received
        .map((b) => (b.task ?? b) as Json)
        .filter((t) => t.id === taskId)
        .map((t) => stateOf(t) ?? ""),
  };
}
