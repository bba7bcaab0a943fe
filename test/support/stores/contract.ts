/**
 * The store contract: one suite that every store engine (memory, SQLite, PostgreSQL, MySQL, Redis) passes.
 *
 * Each test works in a fresh namespace (its own tables / key prefix). Two `open(ns)` calls with the same
 * namespace are two instances of an agent sharing one engine (two connections), which is how the
 * cross-instance properties (CAS under real concurrency, live event delivery, outbox and lease
 * takeover) are tested.
 */
import { execFile } from "node:child_process";
import { chmod, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionLeaseHeldError, InvalidStoreQueryError, StoreError, StoreUnavailableError, TaskVersionConflictError } from "../../../src/runtime/stores/errors.js";
import type { A2AStore, EventSubscription, LoggedEvent } from "../../../src/runtime/stores/contract.js";
import { LeaseWatch } from "../../../src/runtime/tasks/lease-watch.js";
import { taskPatch } from "../../../src/runtime/stores/task-patch.js";
import { OutboxWorker } from "../../../src/runtime/tasks/outbox-worker.js";
import { engineUrl as sharedEngineUrl } from "../engines.js";

export interface StoreHarness {
  /** Opens an instance on a namespace (of the shared engine, or of `url`); the same namespace opened twice shares its data. */
  open(ns: string, url?: string): Promise<A2AStore>;
  /** Removes a namespace's data. */
  drop?(ns: string): Promise<void>;
  /**
   * A private engine of the same kind that the restart test may stop and start (so that it never
   * disturbs the shared engine other test files use); absent when none can be started.
   */
  privateEngine?: () => Promise<PrivateEngine>;
  /**
   * Cases this harness cannot run, by name, each with why: skipped, with the reason in its name (a store
   * reached over a wire cannot be handed a value JSON cannot carry; the case runs on the same store in process).
   */
  unfit?: Readonly<Record<string, string>>;
}

/** The suite's `it`, with the harness's unfit cases skipped and named with their reason. */
function casesOf(unfit: Readonly<Record<string, string>> = {}): typeof it {
  return new Proxy(it, {
    apply: (target, thisArg, args: unknown[]) => {
      const name = args[0];
      const reason = typeof name === "string" ? unfit[name] : undefined;
      if (reason === undefined) return Reflect.apply(target, thisArg, args);
      return Reflect.apply(target.skip, thisArg, [`${name} (not through this harness: ${reason})`, ...args.slice(1)]);
    },
  });
}

export interface PrivateEngine {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  down(): Promise<void>;
}

const run = promisify(execFile);

/**
 * A private engine started by .ci/engines.sh in its own throw-away folder: available where the
 * engines were installed by that script (A2A_TEST_ENGINES_DIR is set), and in CI.
 */
export function scriptEngine(engine: "postgres" | "redis" | "mysql"): (() => Promise<PrivateEngine>) | undefined {
  if (!process.env.A2A_TEST_ENGINES_DIR && process.env.CI !== "true") return undefined;
  const script = resolve(import.meta.dirname, "../../../.ci/engines.sh");
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), `a2a-${engine}-restart-`));
    await chmod(dir, 0o755);
    const env = { ...process.env, A2A_TEST_ENGINES_DIR: dir };
    const exec = async (command: string) => (await run("bash", [script, command, engine], { env, timeout: 60_000 })).stdout.trim();
    const url = (await exec("start")).split("\n").at(-1) ?? "";
    return {
      url,
      stop: async () => void (await exec("stop")),
      start: async () => void (await exec("start")),
      down: async () => void (await run("bash", [script, "down"], { env, timeout: 60_000 })),
    };
  };
}

/** The engine URL from the environment (test/support/engines.ts: absent, a skipped suite naming it; in CI, a failure). */
export function engineUrl(variable: "A2A_TEST_POSTGRES_URL" | "A2A_TEST_REDIS_URL" | "A2A_TEST_MYSQL_URL", engine: string): string | undefined {
  return sharedEngineUrl(variable === "A2A_TEST_POSTGRES_URL" ? "postgres" : variable === "A2A_TEST_MYSQL_URL" ? "mysql" : "redis", `the ${engine} store tests`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let counter = 0;
function namespace(): string {
  return `c${process.pid.toString(36)}${Date.now().toString(36)}${(counter++).toString(36)}`;
}

function task(id: string, options: { contextId?: string; state?: string; time?: string; history?: unknown[]; metadata?: Record<string, unknown> } = {}) {
  return {
    id,
    contextId: options.contextId ?? "ctx",
    kind: "task",
    status: { state: options.state ?? "working", timestamp: options.time ?? new Date().toISOString() },
    history: options.history ?? [],
    metadata: options.metadata ?? {},
  };
}

/**
 * Writes a task as the runtime does while an agent streams an artifact: created whole, then `writes`
 * interim writes of a chunk or two each, each with its patch (`TaskCommit.patch`) and its text when asked
 * (`interimText`), some of them with a new status message. `after` runs after each write. Returns the
 * last write's task (as JSON reads it back) and version.
 */
export async function streamWrites(
  store: A2AStore,
  id: string,
  writes: number,
  after?: (task: Record<string, unknown>, version: number) => unknown,
): Promise<{ task: Record<string, unknown>; version: number }> {
  let current: Record<string, unknown> = task(id);
  let version = (await store.tasks.commit({ task: current, expectedVersion: 0, text: JSON.stringify(current) })).version;
  for (let i = 0; i < writes; i++) {
    const artifacts = (current.artifacts as Array<Record<string, unknown>> | undefined) ?? [];
    const first = artifacts[0];
    const words = Array.from({ length: 1 + (i % 2) }, (_, k) => ({ kind: "text", text: `word${i}.${k} "q"\n` }));
    const next: Record<string, unknown> = {
      ...current,
      artifacts: first ? [{ ...first, parts: [...(first.parts as unknown[]), ...words] }, ...artifacts.slice(1)] : [{ artifactId: "x", name: "answer", parts: words }],
    };
    if (i % 10 === 5) next.status = { state: "working", timestamp: new Date(1_700_000_000_000 + i).toISOString(), message: { role: "agent", parts: [{ kind: "text", text: `step ${i}` }] } };
    const patch = taskPatch(current, next);
    if (!patch) throw new Error("streamWrites: no patch");
    version = (await store.tasks.commit({ task: next, expectedVersion: version, interim: true, patch, interimText: () => JSON.stringify(next), events: [{ event: { n: i }, final: false }] })).version;
    current = next;
    await after?.(JSON.parse(JSON.stringify(current)) as Record<string, unknown>, version);
  }
  return { task: JSON.parse(JSON.stringify(current)) as Record<string, unknown>, version };
}

/** A load's task and version (and owner), without its log position. */
function withoutLogSeq(loaded: { logSeq?: number } | undefined): unknown {
  if (!loaded) return loaded;
  const { logSeq: _position, ...rest } = loaded;
  return rest;
}

/** Waits until `check` passes (or fails after `ms`). */
async function eventually(check: () => void | Promise<void>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(25);
    }
  }
}

export function storeContract(name: string, harness: StoreHarness): void {
  describe(`${name} store contract`, () => {
    const it = casesOf(harness.unfit);
    const opened: A2AStore[] = [];
    const namespaces: string[] = [];
    async function fresh(): Promise<{ ns: string; a: A2AStore; b: A2AStore }> {
      const ns = namespace();
      namespaces.push(ns);
      const a = await harness.open(ns);
      opened.push(a);
      const b = await harness.open(ns);
      opened.push(b);
      return { ns, a, b };
    }
    const engines: PrivateEngine[] = [];
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      for (const ns of namespaces.splice(0)) await harness.drop?.(ns);
      for (const engine of engines.splice(0)) await engine.down();
    });

    it("creates, reads and updates tasks with versions (compare-and-set)", async () => {
      const { a, b } = await fresh();
      expect(await a.tasks.load("t1")).toBeUndefined();
      expect(await a.tasks.get("t1")).toBeUndefined();
      const created = await a.tasks.commit({ task: task("t1"), expectedVersion: 0 });
      expect(created.version).toBe(1);
      const loaded = await b.tasks.load("t1");
      expect(withoutLogSeq(loaded)).toEqual({ task: task("t1", { time: (loaded?.task.status as { timestamp: string }).timestamp }), version: 1 });
      expect(await b.tasks.get("t1")).toEqual(loaded?.task);

      const done = { ...loaded!.task, status: { state: "completed", timestamp: new Date().toISOString() } };
      expect((await b.tasks.commit({ task: done, expectedVersion: 1 })).version).toBe(2);
      // A writer that read version 1 loses: typed error with both versions.
      const stale = a.tasks.commit({ task: { ...done, metadata: { lost: true } }, expectedVersion: 1 });
      await expect(stale).rejects.toBeInstanceOf(TaskVersionConflictError);
      await expect(stale).rejects.toMatchObject({ code: "conflict", taskId: "t1", expectedVersion: 1, actualVersion: 2 });
      // Creating an existing task is a conflict too.
      await expect(a.tasks.commit({ task: task("t1"), expectedVersion: 0 })).rejects.toMatchObject({ expectedVersion: 0, actualVersion: 2 });
      // Updating a task that does not exist.
      await expect(a.tasks.commit({ task: task("nope"), expectedVersion: 3 })).rejects.toMatchObject({ actualVersion: 0 });
      expect((await a.tasks.load("t1"))?.task).toEqual(done);

      // save() is the unconditional write of the original interface; it still bumps the version.
      await a.tasks.save({ ...done, metadata: { saved: 1 } });
      expect(await b.tasks.load("t1")).toMatchObject({ version: 3, task: { metadata: { saved: 1 } } });
      await a.tasks.save(task("t2"));
      expect(await b.tasks.load("t2")).toMatchObject({ version: 1 });
    });

    it("holds values no caller can change: neither the writer's objects after the write, nor what a read returns", async () => {
      const { a, b } = await fresh();
      const written = task("m1", { metadata: { n: 1, list: [1] } });
      const event = { kind: "status-update", n: 1, nested: { list: [1] } };
      await a.tasks.commit({ task: written, expectedVersion: 0, events: [{ event, final: false }] });
      (written.metadata as { n: number; list: number[] }).n = 2;
      (written.metadata as { n: number; list: number[] }).list.push(2);
      event.nested.list.push(2);
      for (const store of [a, b]) {
        const loaded = await store.tasks.load("m1");
        expect(loaded?.task.metadata).toEqual({ n: 1, list: [1] });
        (loaded!.task.metadata as { list: number[] }).list.push(3);
        (await store.tasks.get("m1"))!.id = "changed";
        (await store.tasks.query({})).tasks[0]!.contextId = "changed";
        const [logged] = await store.events.read("m1");
        expect(logged?.event).toEqual({ kind: "status-update", n: 1, nested: { list: [1] } });
        (logged!.event.nested as { list: number[] }).list.push(3);
      }
      expect(await b.tasks.load("m1")).toMatchObject({ version: 1, task: { id: "m1", contextId: "ctx", metadata: { n: 1, list: [1] } } });
      expect((await b.events.read("m1"))[0]?.event).toEqual({ kind: "status-update", n: 1, nested: { list: [1] } });
    });

    it("keeps a commit's task text (exactly JSON.stringify of its task) as the task, on every instance", async () => {
      const { a, b } = await fresh();
      const parts = Array.from({ length: 20 }, (_, i) => ({ kind: "text", text: `chunk ${i} "q"\n✓` }));
      const written = { ...task("x1", { metadata: { n: 1 } }), artifacts: [{ artifactId: "a", parts }] };
      const text = JSON.stringify(written);
      expect((await a.tasks.commit({ task: written, text, expectedVersion: 0 })).version).toBe(1);
      (written.metadata as { n: number }).n = 2;
      for (const store of [a, b]) {
        const loaded = await store.tasks.load("x1");
        expect(loaded?.task).toEqual(JSON.parse(text));
        expect(loaded?.version).toBe(1);
      }
    });

    it("refuses a task it cannot store, and stores nothing of it", async () => {
      const { a } = await fresh();
      const cyclic: Record<string, unknown> = task("bad");
      cyclic.metadata = { self: cyclic };
      await expect(a.tasks.commit({ task: cyclic, expectedVersion: 0 })).rejects.toMatchObject({ code: "invalid" });
      await expect(a.tasks.commit({ task: { ...task("x"), id: "" }, expectedVersion: 0 })).rejects.toBeInstanceOf(StoreError);
      expect(await a.tasks.load("bad")).toBeUndefined();
      expect((await a.tasks.query({})).totalSize).toBe(0);
    });

    it("loses no update when two instances race on one task (retry on conflict)", async () => {
      const { a, b } = await fresh();
      await a.tasks.commit({ task: task("race", { metadata: { count: 0 } }), expectedVersion: 0 });
      let conflicts = 0;
      const writer = async (store: A2AStore, who: string, turns: number) => {
        for (let i = 0; i < turns; i++) {
          for (;;) {
            const current = (await store.tasks.load("race"))!;
            const metadata = current.task.metadata as { count: number };
            const history = current.task.history as unknown[];
            try {
              await store.tasks.commit({
                task: { ...current.task, metadata: { count: metadata.count + 1 }, history: [...history, `${who}${i}`] },
                expectedVersion: current.version,
              });
              break;
            } catch (error) {
              if (!(error instanceof TaskVersionConflictError)) throw error;
              conflicts++;
            }
          }
        }
      };
      await Promise.all([writer(a, "a", 15), writer(b, "b", 15), writer(a, "c", 15), writer(b, "d", 15)]);
      const final = (await a.tasks.load("race"))!;
      expect(final.version).toBe(61);
      expect(final.task.metadata).toEqual({ count: 60 });
      const history = final.task.history as string[];
      expect(history).toHaveLength(60);
      for (const who of ["a", "b", "c", "d"]) {
        // Each writer's turns, in its own order.
        expect(history.filter((h) => h.startsWith(who))).toEqual(Array.from({ length: 15 }, (_, i) => `${who}${i}`));
      }
      expect(conflicts).toBeGreaterThan(0);
    });

    it("lists tasks newest first with filters and cursor paging (ListTasks, 1.0.1 §3.1.4)", async () => {
      const { a, b } = await fresh();
      const base = Date.parse("2026-01-01T00:00:00.000Z");
      const at = (s: number) => new Date(base + s * 1000).toISOString();
      // Two tasks share a timestamp: the id breaks the tie.
      const specs = [
        { id: "k1", contextId: "c1", state: "working", time: at(1) },
        { id: "k2", contextId: "c1", state: "completed", time: at(2) },
        { id: "k3", contextId: "c2", state: "working", time: at(3) },
        { id: "k4", contextId: "c1", state: "working", time: at(4) },
        { id: "k5", contextId: "c2", state: "completed", time: at(4) },
        { id: "k6", contextId: "c1", state: "input-required", time: at(6) },
        { id: "k7", contextId: "c1", state: "working", time: at(7) },
      ];
      for (const s of specs) await a.tasks.commit({ task: task(s.id, s), expectedVersion: 0 });
      const ids = (page: { tasks: Array<{ id?: unknown }> }) => page.tasks.map((t) => t.id);

      const all = await b.tasks.query({});
      expect(ids(all)).toEqual(["k7", "k6", "k5", "k4", "k3", "k2", "k1"]);
      expect(all).toMatchObject({ totalSize: 7, nextPageToken: "" });

      // Paging: every task once, in order, the token empty on the last page.
      const seen: unknown[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await b.tasks.query({ pageSize: 3, ...(token ? { pageToken: token } : {}) });
        expect(page.totalSize).toBe(7);
        seen.push(...ids(page));
        token = page.nextPageToken || undefined;
        pages++;
      } while (token);
      expect(pages).toBe(3);
      expect(seen).toEqual(ids(all));

      expect(ids(await b.tasks.query({ contextId: "c1" }))).toEqual(["k7", "k6", "k4", "k2", "k1"]);
      expect(ids(await b.tasks.query({ status: "working" }))).toEqual(["k7", "k4", "k3", "k1"]);
      expect(ids(await b.tasks.query({ contextId: "c1", status: "working" }))).toEqual(["k7", "k4", "k1"]);
      // "greater than or equal" (the proto's comment on status_timestamp_after).
      expect(ids(await b.tasks.query({ statusTimestampAfter: base + 4000 }))).toEqual(["k7", "k6", "k5", "k4"]);
      const filtered = await b.tasks.query({ contextId: "c1", status: "working", pageSize: 2 });
      expect(filtered).toMatchObject({ totalSize: 3 });
      expect(ids(filtered)).toEqual(["k7", "k4"]);
      expect(ids(await b.tasks.query({ contextId: "c1", status: "working", pageSize: 2, pageToken: filtered.nextPageToken }))).toEqual(["k1"]);
      expect(await b.tasks.query({ contextId: "nobody" })).toEqual({ tasks: [], nextPageToken: "", totalSize: 0 });

      // An update moves the task to its new status time.
      const k1 = (await a.tasks.load("k1"))!;
      await a.tasks.commit({ task: { ...k1.task, status: { state: "completed", timestamp: at(9) } }, expectedVersion: k1.version });
      expect(ids(await b.tasks.query({ pageSize: 2 }))).toEqual(["k1", "k7"]);
      expect(ids(await b.tasks.query({ status: "completed" }))).toEqual(["k1", "k5", "k2"]);
      expect(ids(await b.tasks.query({ status: "working" }))).toEqual(["k7", "k4", "k3"]);
      // The original list() still answers, newest first.
      expect((await b.tasks.list({ contextId: "c2" })).map((t) => t.id)).toEqual(["k5", "k3"]);

      await expect(b.tasks.query({ pageToken: "not-a-token" })).rejects.toBeInstanceOf(InvalidStoreQueryError);
      await expect(b.tasks.query({ pageToken: "not-a-token" })).rejects.toMatchObject({ field: "pageToken", code: "invalid" });
      await expect(b.tasks.query({ pageSize: 0 })).rejects.toMatchObject({ field: "pageSize" });
    });

    it("keeps each task's owner scope beside it and lists one scope at a time (1.0.1 §13.1)", async () => {
      const { a, b } = await fresh();
      const base = Date.parse("2026-02-01T00:00:00.000Z");
      const at = (s: number) => new Date(base + s * 1000).toISOString();
      await a.tasks.commit({ task: task("o1", { contextId: "c", time: at(1) }), expectedVersion: 0, owner: "alice" });
      await a.tasks.commit({ task: task("o2", { contextId: "c", time: at(2) }), expectedVersion: 0, owner: "bob" });
      await a.tasks.commit({ task: task("o3", { contextId: "c", time: at(3) }), expectedVersion: 0 });
      await a.tasks.commit({ task: task("o4", { contextId: "d", state: "completed", time: at(4) }), expectedVersion: 0, owner: "alice" });
      const ids = (page: { tasks: Array<{ id?: unknown }> }) => page.tasks.map((t) => t.id);
      // The owner is kept beside the task, never inside it.
      const o1 = await b.tasks.load("o1");
      expect(o1).toMatchObject({ owner: "alice", version: 1 });
      expect(o1?.task).not.toHaveProperty("owner");
      expect((await b.tasks.load("o3"))?.owner).toBeUndefined();
      expect(await b.tasks.query({ owner: "alice" })).toMatchObject({ totalSize: 2 });
      expect(ids(await b.tasks.query({ owner: "alice" }))).toEqual(["o4", "o1"]);
      expect(ids(await b.tasks.query({ owner: "bob" }))).toEqual(["o2"]);
      expect(ids(await b.tasks.query({ owner: "" }))).toEqual(["o3"]);
      expect(ids(await b.tasks.query({ owner: "alice", contextId: "c" }))).toEqual(["o1"]);
      expect(ids(await b.tasks.query({ owner: "alice", status: "completed" }))).toEqual(["o4"]);
      expect(ids(await b.tasks.query({ owner: "alice", contextId: "d", status: "completed" }))).toEqual(["o4"]);
      expect(ids(await b.tasks.query({ owner: "carol" }))).toEqual([]);
      expect(ids(await b.tasks.query({}))).toEqual(["o4", "o3", "o2", "o1"]);
      // Later writes keep the creation's owner, whatever they say.
      await b.tasks.commit({ task: { ...o1!.task, status: { state: "completed", timestamp: at(9) } }, expectedVersion: 1, owner: "mallory" });
      expect(await a.tasks.load("o1")).toMatchObject({ owner: "alice", version: 2 });
      expect(ids(await a.tasks.query({ owner: "alice" }))).toEqual(["o1", "o4"]);
      expect(ids(await a.tasks.query({ owner: "mallory" }))).toEqual([]);
    });

    it("keeps push configs per task", async () => {
      const { a, b } = await fresh();
      expect(await a.pushConfigs.set("p1", { url: "https://a.example/hook", token: "t" })).toEqual({ url: "https://a.example/hook", token: "t" });
      await a.pushConfigs.set("p1", { id: "second", url: "https://b.example/hook" });
      await a.pushConfigs.set("p2", { id: "other", url: "https://c.example/hook" });
      expect(await b.pushConfigs.list("p1")).toEqual([
        { url: "https://a.example/hook", token: "t" },
        { id: "second", url: "https://b.example/hook" },
      ]);
      expect(await b.pushConfigs.get("p1", "p1")).toEqual({ url: "https://a.example/hook", token: "t" });
      expect(await b.pushConfigs.get("p1")).toEqual({ id: "second", url: "https://b.example/hook" });
      // Setting an existing id replaces it in place.
      await b.pushConfigs.set("p1", { url: "https://a.example/new" });
      expect((await a.pushConfigs.list("p1")).map((c) => c.url)).toEqual(["https://a.example/new", "https://b.example/hook"]);
      expect(await a.pushConfigs.delete("p1", "second")).toBe(true);
      expect(await a.pushConfigs.delete("p1", "second")).toBe(false);
      expect(await b.pushConfigs.get("p1", "second")).toBeUndefined();
      expect(await b.pushConfigs.list("nothing")).toEqual([]);
      expect(await b.pushConfigs.get("nothing")).toBeUndefined();
    });

    it("keeps each task's last write id when it says so (keepsWriteIds), and save() clears it", async () => {
      const { a, b } = await fresh();
      if (a.tasks.keepsWriteIds !== true) {
        // A store without the capability (in-memory: no write of it can lose its answer) gives none.
        await a.tasks.commit({ task: task("w1"), expectedVersion: 0, writeId: "x" });
        expect((await b.tasks.load("w1"))?.lastWriteId).toBeUndefined();
        return;
      }
      await a.tasks.commit({ task: task("w1"), expectedVersion: 0, writeId: "first" });
      expect(await b.tasks.load("w1")).toMatchObject({ version: 1, lastWriteId: "first" });
      const next = task("w1", { metadata: { n: 2 } });
      await b.tasks.commit({ task: next, expectedVersion: 1, writeId: "second", interim: true, patch: [{ op: "add", path: "/metadata/n", value: 2 }], interimText: () => JSON.stringify(next) });
      expect(await a.tasks.load("w1")).toMatchObject({ version: 2, lastWriteId: "second" });
      await a.tasks.commit({ task: task("w1", { state: "completed" }), expectedVersion: 2 });
      expect((await b.tasks.load("w1"))?.lastWriteId).toBeUndefined();
      await b.tasks.commit({ task: task("w1", { state: "completed" }), expectedVersion: 3, writeId: "third" });
      await a.tasks.save(task("w1", { state: "failed" }));
      expect(await b.tasks.load("w1")).toMatchObject({ version: 5 });
      expect((await b.tasks.load("w1"))?.lastWriteId).toBeUndefined();
    });

    it("reads a task with the sequence of its last logged event, in the same step (logSeq)", async () => {
      const { a, b } = await fresh();
      await a.tasks.commit({ task: task("q1"), expectedVersion: 0, events: [{ event: { n: 1 }, final: false }, { event: { n: 2 }, final: false }] });
      expect(await b.tasks.load("q1")).toMatchObject({ version: 1, logSeq: 2 });
      // An event appended without a task write (a turn mark) moves it too; a commit without events does not.
      await b.events.append("q1", [{ event: { mark: true }, final: false }]);
      await b.tasks.commit({ task: task("q1", { state: "completed" }), expectedVersion: 1 });
      expect(await a.tasks.load("q1")).toMatchObject({ version: 2, logSeq: 3 });
      await a.tasks.commit({ task: task("q2"), expectedVersion: 0 });
      expect(await b.tasks.load("q2")).toMatchObject({ version: 1, logSeq: 0 });
      // Whatever commits race with the reads, a read's task holds exactly the events up to its logSeq.
      let written = false;
      const writes = (async () => {
        for (let n = 1; n <= 40; n++) {
          await a.tasks.commit({ task: task("q2", { metadata: { n } }), expectedVersion: n, events: [{ event: { n }, final: false }] });
        }
        written = true;
      })();
      const seen = new Set<number>();
      while (!written) {
        const loaded = await b.tasks.load("q2");
        expect((loaded?.task.metadata as { n?: number }).n ?? 0).toBe(loaded?.logSeq);
        seen.add(loaded?.logSeq ?? -1);
      }
      await writes;
      // The reads saw the task at several points of the writes.
      expect(seen.size).toBeGreaterThan(1);
    });

    it("logs events in order, reads from a sequence and delivers live events across instances", async () => {
      const { a, b } = await fresh();
      const ev = (n: number) => ({ kind: "status-update", n });
      const created = await a.tasks.commit({ task: task("e1"), expectedVersion: 0, events: [{ event: ev(1), final: false }, { event: ev(2), final: false }] });
      expect(created.sequences).toEqual([1, 2]);
      expect(await a.events.append("e1", [{ event: ev(3), final: false }])).toEqual([3]);
      expect(await b.events.read("e1")).toEqual([
        { seq: 1, event: ev(1), final: false },
        { seq: 2, event: ev(2), final: false },
        { seq: 3, event: ev(3), final: false },
      ]);
      expect((await b.events.read("e1", 1)).map((e) => e.seq)).toEqual([2, 3]);
      expect((await b.events.read("e1", 1, 1)).map((e) => e.seq)).toEqual([2]);
      expect(await b.events.read("e1", 3)).toEqual([]);
      await expect(a.events.append("missing", [{ event: ev(0), final: false }])).rejects.toMatchObject({ code: "not-found" });

      // Subscribers on instance B: one from the start, one resuming after sequence 2 (Last-Event-ID).
      const fromStart: LoggedEvent[] = [];
      const resumed: LoggedEvent[] = [];
      const s1 = b.events.subscribe("e1", (e) => fromStart.push(e));
      const s2 = b.events.subscribe("e1", (e) => resumed.push(e), { after: 2 });
      await Promise.all([s1.ready, s2.ready]);
      expect(resumed.map((e) => e.seq)).toEqual([3]);

      // Instance A writes concurrently: by commits and by appends.
      let version = (await a.tasks.load("e1"))!.version;
      const writes: Array<Promise<unknown>> = [];
      for (let n = 4; n <= 20; n++) {
        if (n % 2 === 0) {
          const current = (await a.tasks.load("e1"))!;
          version = (await a.tasks.commit({ task: { ...current.task, metadata: { n } }, expectedVersion: current.version, events: [{ event: ev(n), final: n === 20 }] })).version;
        } else {
          writes.push(a.events.append("e1", [{ event: ev(n), final: false }]));
        }
      }
      await Promise.all(writes);
      expect(version).toBeGreaterThan(1);
      const expected = Array.from({ length: 20 }, (_, i) => i + 1);
      await eventually(() => expect(fromStart.map((e) => e.seq)).toEqual(expected));
      await eventually(() => expect(resumed.map((e) => e.seq)).toEqual(expected.slice(2)));
      // Each event once, with its content and its final flag. The odd appends are not awaited before the
      // next commit, so the log may order one after the final event: the flag travels with its event, not
      // with the last sequence.
      expect(new Set(fromStart.map((e) => (e.event as { n: number }).n)).size).toBe(20);
      expect(fromStart.filter((e) => e.final).map((e) => (e.event as { n: number }).n)).toEqual([20]);

      // A closed subscription receives nothing more.
      s2.close();
      await a.events.append("e1", [{ event: ev(21), final: false }]);
      await eventually(() => expect(fromStart.at(-1)?.seq).toBe(21));
      expect(resumed.at(-1)?.seq).toBe(20);
      s1.close();
    });

    it("delivers every event of many concurrent tasks to subscribers on both instances, in order, with no gap", async () => {
      const { a, b } = await fresh();
      const tasks = 60;
      const eventsPerTask = 5;
      const seen = new Map<string, number[]>();
      const subscriptions: EventSubscription[] = [];
      const ids = Array.from({ length: tasks }, (_, i) => `m${i}`);
      for (const id of ids) await (Number(id.slice(1)) % 2 ? a : b).tasks.commit({ task: task(id), expectedVersion: 0 });
      for (const id of ids) {
        for (const [who, store] of [["a", a], ["b", b]] as const) {
          const key = `${who}:${id}`;
          seen.set(key, []);
          const sub = store.events.subscribe(id, (e) => seen.get(key)!.push(e.seq));
          subscriptions.push(sub);
        }
      }
      await Promise.all(subscriptions.map((s) => s.ready));
      // Writers on both instances, each event a CAS commit of its task (retried on conflict).
      await Promise.all(
        ids.map(async (id, i) => {
          for (let n = 0; n < eventsPerTask; n++) {
            const store = (i + n) % 2 ? a : b;
            for (;;) {
              const current = (await store.tasks.load(id))!;
              try {
                await store.tasks.commit({ task: current.task, expectedVersion: current.version, events: [{ event: { n }, final: n === eventsPerTask - 1 }] });
                break;
              } catch (error) {
                if (!(error instanceof TaskVersionConflictError)) throw error;
              }
            }
          }
        }),
      );
      const expected = Array.from({ length: eventsPerTask }, (_, n) => n + 1);
      await eventually(() => {
        for (const [key, seqs] of seen) expect(seqs, key).toEqual(expected);
      }, 20_000);
      for (const s of subscriptions) s.close();
    });

    it("queues push notifications with the task update and delivers them at least once (outbox leases)", async () => {
      const { a, b } = await fresh();
      const hook = { url: "https://hooks.example/a2a" };
      await a.tasks.commit({
        task: task("o1"),
        expectedVersion: 0,
        pushes: [
          { taskId: "o1", target: hook, payload: { n: 1 } },
          { taskId: "o1", target: hook, payload: { n: 2 } },
        ],
      });
      expect(await b.outbox.size()).toBe(2);
      // A conflicting commit queues nothing.
      await expect(a.tasks.commit({ task: task("o1"), expectedVersion: 0, pushes: [{ taskId: "o1", target: hook, payload: { n: 99 } }] })).rejects.toBeInstanceOf(
        TaskVersionConflictError,
      );
      expect(await b.outbox.size()).toBe(2);

      const first = await a.outbox.claim("instance-a", { leaseMs: 400, limit: 10 });
      expect(first.map((e) => e.payload)).toEqual([{ n: 1 }, { n: 2 }]);
      expect(first[0]).toMatchObject({ taskId: "o1", target: hook, attempts: 1 });
      // Leased: nobody else gets them meanwhile.
      expect(await b.outbox.claim("instance-b", { leaseMs: 400 })).toEqual([]);
      expect(await a.outbox.ack(first[0]!.id, "instance-a")).toBe(true);
      // Instance A dies holding the second one: its lease expires and B claims it again.
      await sleep(600);
      const again = await b.outbox.claim("instance-b", { leaseMs: 5_000 });
      expect(again.map((e) => [e.id, e.payload, e.attempts])).toEqual([[first[1]!.id, { n: 2 }, 2]]);
      // The old owner can no longer acknowledge or release it.
      expect(await a.outbox.ack(first[1]!.id, "instance-a")).toBe(false);
      expect(await a.outbox.retry(first[1]!.id, "instance-a", 0)).toBe(false);
      // A failed delivery comes back after its delay.
      expect(await b.outbox.retry(again[0]!.id, "instance-b", 300)).toBe(true);
      expect(await a.outbox.claim("instance-a", { leaseMs: 1000 })).toEqual([]);
      await sleep(450);
      const retried = await a.outbox.claim("instance-a", { leaseMs: 1000 });
      expect(retried.map((e) => e.attempts)).toEqual([3]);
      expect(await a.outbox.ack(retried[0]!.id, "instance-a")).toBe(true);
      expect(await b.outbox.size()).toBe(0);
    });

    it("shares the outbox between instances claiming at once: each entry to one of them", async () => {
      const { a, b } = await fresh();
      const ids = await a.outbox.enqueue(Array.from({ length: 30 }, (_, n) => ({ taskId: "q", target: { url: "https://h.example" }, payload: { n } })));
      expect(ids).toHaveLength(30);
      const claimed: string[] = [];
      const worker = async (store: A2AStore, owner: string) => {
        for (;;) {
          const batch = await store.outbox.claim(owner, { leaseMs: 30_000, limit: 4 });
          if (batch.length === 0) return;
          for (const entry of batch) {
            claimed.push(entry.id);
            expect(await store.outbox.ack(entry.id, owner)).toBe(true);
          }
        }
      };
      await Promise.all([worker(a, "a"), worker(b, "b"), worker(a, "c"), worker(b, "d")]);
      expect([...claimed].sort()).toEqual([...ids].sort());
      expect(await a.outbox.size()).toBe(0);
    });

    it("holds one execution lease per task and hands expired leases over to one instance", async () => {
      const { a, b } = await fresh();
      expect(await a.leases.acquire("l1", "a", 400)).toBe(true);
      expect(await b.leases.acquire("l1", "b", 400)).toBe(false);
      expect(await a.leases.acquire("l1", "a", 400)).toBe(true); // re-entrant for its owner
      expect(await a.leases.renew("l1", "a", 400)).toBe(true);
      expect(await b.leases.renew("l1", "b", 400)).toBe(false);
      expect(await b.leases.holder("l1")).toMatchObject({ owner: "a" });
      expect(await b.leases.claimExpired("b", 5_000)).toEqual([]);
      expect(await a.leases.acquire("l2", "a", 60_000)).toBe(true);

      // Instance A dies: l1 expires (l2 does not); instances B and C race to take it over.
      await sleep(600);
      const [byB, byC] = await Promise.all([b.leases.claimExpired("b", 5_000), a.leases.claimExpired("c", 5_000)]);
      const winners = [...byB, ...byC];
      expect(winners).toEqual([{ taskId: "l1", previousOwner: "a" }]);
      const winner = byB.length === 1 ? "b" : "c";
      expect(await a.leases.holder("l1")).toMatchObject({ owner: winner });
      expect(await a.leases.renew("l1", "a", 400)).toBe(false);
      expect(await a.leases.holder("l2")).toMatchObject({ owner: "a" });
      await a.leases.release("l1", "a"); // not the owner: no effect
      expect(await b.leases.holder("l1")).toMatchObject({ owner: winner });
      await b.leases.release("l1", winner);
      expect(await b.leases.holder("l1")).toBeUndefined();
      expect(await a.leases.acquire("l1", "a", 400)).toBe(true);
    });

    it("hands a lease over at once: renewed for 0 ms it is expired, and another instance claims it now (graceful shutdown)", async () => {
      const { a, b } = await fresh();
      expect(await a.leases.acquire("h1", "a", 60_000)).toBe(true);
      expect(await b.leases.claimExpired("b", 5_000)).toEqual([]);
      expect(await a.leases.renew("h1", "a", 0)).toBe(true);
      // No wait for the lease's length: the next claim (a scan, or a client's resubscription) takes it.
      expect(await b.leases.claimExpired("b", 5_000)).toEqual([{ taskId: "h1", previousOwner: "a" }]);
      expect(await a.leases.holder("h1")).toMatchObject({ owner: "b" });
      expect(await a.leases.renew("h1", "a", 60_000)).toBe(false);
    });

    it("answers a ping while its engine answers (readiness), and rejects once closed", async () => {
      const { a } = await fresh();
      expect(a.ping).toBeTypeOf("function");
      await expect(a.ping?.()).resolves.toBeUndefined();
      const ns = namespace();
      namespaces.push(ns);
      const other = await harness.open(ns);
      await other.close();
      if (other.engine !== "memory") await expect(other.ping?.()).rejects.toBeInstanceOf(StoreUnavailableError);
    });

    it("takes and gives up the execution lease in the task's own commit (one write per step of a turn)", async () => {
      const { a, b } = await fresh();
      // Instance A creates the task and takes its lease in one write.
      await a.tasks.commit({ task: task("cl"), expectedVersion: 0, lease: { acquire: "a", ttlMs: 400 } });
      expect(await b.leases.holder("cl")).toMatchObject({ owner: "a" });
      // Instance B, with the right version, still cannot start a turn there: the task runs on A.
      const held = b.tasks.commit({ task: task("cl", { metadata: { by: "b" } }), expectedVersion: 1, lease: { acquire: "b", ttlMs: 400 } });
      await expect(held).rejects.toBeInstanceOf(ExecutionLeaseHeldError);
      await expect(held).rejects.toMatchObject({ code: "conflict", taskId: "cl", owner: "a" });
      expect(await a.tasks.load("cl")).toMatchObject({ version: 1, task: { metadata: {} } });
      // A stale version is a version conflict, whoever holds the lease.
      await expect(b.tasks.commit({ task: task("cl"), expectedVersion: 7, lease: { acquire: "b", ttlMs: 400 } })).rejects.toBeInstanceOf(TaskVersionConflictError);
      // A commit without `lease` (a cancel written by another instance) is not blocked by it, and leaves it.
      expect((await b.tasks.commit({ task: task("cl", { metadata: { step: 2 } }), expectedVersion: 1 })).version).toBe(2);
      expect(await b.leases.holder("cl")).toMatchObject({ owner: "a" });
      // The owner renews in its commits, and its final write gives the lease up; B can then run the next turn.
      expect((await a.tasks.commit({ task: task("cl", { metadata: { step: 3 } }), expectedVersion: 2, lease: { acquire: "a", ttlMs: 400 } })).version).toBe(3);
      await a.tasks.commit({ task: task("cl", { state: "input-required" }), expectedVersion: 3, lease: { release: "a" } });
      expect(await b.leases.holder("cl")).toBeUndefined();
      await b.tasks.commit({ task: task("cl", { metadata: { by: "b" } }), expectedVersion: 4, lease: { acquire: "b", ttlMs: 400 } });
      expect(await a.leases.holder("cl")).toMatchObject({ owner: "b" });
      // B dies: once its lease expires, A may take the task over in its commit.
      await sleep(600);
      await a.tasks.commit({ task: task("cl", { state: "failed" }), expectedVersion: 5, lease: { acquire: "a", ttlMs: 400 } });
      // Releasing a lease one does not hold changes nothing.
      await b.tasks.commit({ task: task("cl", { state: "failed" }), expectedVersion: 6, lease: { release: "b" } });
      expect(await a.leases.holder("cl")).toMatchObject({ owner: "a" });

      // Two instances racing to start a turn on one task: exactly one wins, the other gets a typed conflict.
      await a.tasks.commit({ task: task("duel", { state: "input-required" }), expectedVersion: 0 });
      const outcomes = await Promise.allSettled([
        a.tasks.commit({ task: task("duel", { metadata: { by: "a" } }), expectedVersion: 1, lease: { acquire: "a", ttlMs: 5_000 } }),
        b.tasks.commit({ task: task("duel", { metadata: { by: "b" } }), expectedVersion: 1, lease: { acquire: "b", ttlMs: 5_000 } }),
      ]);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      const loser = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(StoreError);
      expect(loser.reason).toMatchObject({ code: "conflict" });
      const winner = ((await a.tasks.load("duel"))!.task.metadata as { by: string }).by;
      expect(await b.leases.holder("duel")).toMatchObject({ owner: winner });
    });

    it("delivers the outbox at least once with workers on two instances, one of which dies mid-delivery", async () => {
      const { a, b } = await fresh();
      await a.outbox.enqueue(Array.from({ length: 12 }, (_, n) => ({ taskId: "w", target: { url: "https://h.example" }, payload: { n } })));
      // Instance A claims a batch and dies before acknowledging anything.
      const started: number[] = [];
      const dying = new OutboxWorker({
        outbox: a.outbox,
        owner: "a",
        leaseMs: 400,
        batch: 5,
        deliver: (entry) => {
          started.push((entry.payload as { n: number }).n);
          return new Promise<never>(() => undefined);
        },
      });
      void dying.runOnce();
      await eventually(() => expect(started).toHaveLength(5));
      // Instance B delivers everything: the rest at once, A's batch when A's lease ends. Entry 7 fails once.
      const delivered: number[] = [];
      const errors: unknown[] = [];
      let failedOnce = false;
      const worker = new OutboxWorker({
        outbox: b.outbox,
        owner: "b",
        pollMs: 50,
        backoffMs: () => 100,
        onError: (error) => errors.push(error),
        deliver: async (entry) => {
          const n = (entry.payload as { n: number }).n;
          if (n === 7 && !failedOnce) {
            failedOnce = true;
            return { delivered: false, reason: "HTTP 503" };
          }
          delivered.push(n);
          return { delivered: true };
        },
      });
      worker.start();
      try {
        await eventually(() => expect([...delivered].sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, n) => n)));
        await eventually(async () => expect(await a.outbox.size()).toBe(0));
      } finally {
        await worker.stop();
      }
      expect(errors.map(String)).toEqual(["Error: push notification not delivered (attempt 1): HTTP 503"]);

      // An entry that keeps failing is dropped after maxAttempts, and said so.
      await a.outbox.enqueue([{ taskId: "w", target: { url: "https://h.example" }, payload: { n: 99 } }]);
      const dropped: unknown[] = [];
      const failing = new OutboxWorker({ outbox: b.outbox, owner: "b", maxAttempts: 3, backoffMs: () => 0, onError: (e) => dropped.push(e), deliver: async () => ({ delivered: false, reason: "refused" }) });
      for (let i = 0; i < 3; i++) expect(await failing.runOnce()).toBe(1);
      expect(await b.outbox.size()).toBe(0);
      expect(String(dropped.at(-1))).toBe("Error: push notification dropped after 3 attempt(s): refused");
    });

    it("renews held leases and takes over the tasks of an instance that died (lease watch)", async () => {
      const { a, b } = await fresh();
      await a.tasks.commit({ task: task("lw1"), expectedVersion: 0, lease: { acquire: "a", ttlMs: 600 } });
      await a.tasks.commit({ task: task("lw2"), expectedVersion: 0, lease: { acquire: "a", ttlMs: 600 } });
      const expiredOnB: Array<[string, string]> = [];
      const watchA = new LeaseWatch({ leases: a.leases, owner: "a", ttlMs: 600, onExpired: async () => undefined });
      const watchB = new LeaseWatch({
        leases: b.leases,
        owner: "b",
        ttlMs: 600,
        onExpired: async (taskId, previous) => {
          const current = (await b.tasks.load(taskId))!;
          await b.tasks.commit({ task: { ...current.task, status: { state: "failed", timestamp: new Date().toISOString() } }, expectedVersion: current.version, lease: { release: "b" } });
          expiredOnB.push([taskId, previous]);
        },
      });
      watchA.hold("lw1");
      watchA.hold("lw2");
      watchA.start();
      watchB.start();
      try {
        // A is alive: its renewals keep both leases well past their length.
        await sleep(1_500);
        expect(expiredOnB).toEqual([]);
        expect(await b.leases.holder("lw1")).toMatchObject({ owner: "a" });
        // lw2's execution ends normally; then A dies.
        watchA.drop("lw2");
        await a.tasks.commit({ task: task("lw2", { state: "completed" }), expectedVersion: 1, lease: { release: "a" } });
        watchA.stop();
        await eventually(() => expect(expiredOnB).toEqual([["lw1", "a"]]));
        expect((await a.tasks.load("lw1"))?.task.status).toMatchObject({ state: "failed" });
        expect(await a.leases.holder("lw1")).toBeUndefined();
        expect((await a.tasks.load("lw2"))?.task.status).toMatchObject({ state: "completed" });
      } finally {
        watchA.stop();
        watchB.stop();
      }
      // A comes back and renews too late: it is told it lost the lease.
      await a.tasks.commit({ task: task("lw3"), expectedVersion: 0, lease: { acquire: "a", ttlMs: 200 } });
      await sleep(300);
      expect(await b.leases.claimExpired("b", 5_000)).toEqual([{ taskId: "lw3", previousOwner: "a" }]);
      const lost: string[] = [];
      const late = new LeaseWatch({ leases: a.leases, owner: "a", ttlMs: 200, onExpired: async () => undefined, onLost: (id) => lost.push(id) });
      late.hold("lw3");
      await late.renewAll();
      expect(lost).toEqual(["lw3"]);
    });

    it("reads a streamed task as its last write had it, on every instance and by every read, whether the store kept patches or whole texts", async () => {
      const { a, b } = await fresh();
      const readsAll = async (expected: Record<string, unknown>, version: number) => {
        for (const store of [a, b]) {
          expect(withoutLogSeq(await store.tasks.load("p1"))).toEqual({ task: expected, version });
          expect(await store.tasks.get("p1")).toEqual(expected);
          expect((await store.tasks.query({ contextId: "ctx" })).tasks).toEqual([expected]);
          expect(await store.tasks.list({ contextId: "ctx" })).toEqual([expected]);
        }
      };
      const written = await streamWrites(a, "p1", 120, (current, version) => (version % 17 === 0 ? readsAll(current, version) : undefined));
      await readsAll(written.task, written.version);
      // The turn's last write (whole): what it wrote, and nothing of the patches applied on top.
      const done = { ...written.task, status: { state: "completed", timestamp: new Date().toISOString() }, artifacts: [{ artifactId: "x", parts: [{ kind: "text", text: "all" }] }] };
      await b.tasks.commit({ task: done, expectedVersion: written.version, text: JSON.stringify(done) });
      await readsAll(done, written.version + 1);
      // save() (last writer wins) after patched writes: the saved task, no patch on top.
      const again = await streamWrites(a, "p2", 60);
      const saved = { ...task("p2", { metadata: { saved: true } }) };
      await b.tasks.save(saved);
      expect(withoutLogSeq(await a.tasks.load("p2"))).toEqual({ task: saved, version: again.version + 1 });
    });

    it("purges finished tasks past retention with their events and configs, and keeps the others", async () => {
      const { a, b } = await fresh();
      await a.tasks.commit({ task: task("r-done", { state: "completed" }), expectedVersion: 0, events: [{ event: { n: 1 }, final: true }] });
      await a.tasks.commit({ task: task("r-failed", { state: "TASK_STATE_FAILED" }), expectedVersion: 0 });
      await a.tasks.commit({ task: task("r-running", { state: "working" }), expectedVersion: 0, events: [{ event: { n: 1 }, final: false }] });
      await a.pushConfigs.set("r-done", { url: "https://h.example" });
      await a.pushConfigs.set("r-running", { url: "https://h.example" });
      expect(await b.purgeFinished({ olderThanMs: 60_000 })).toBe(0);
      await sleep(150);
      await a.tasks.commit({ task: task("r-fresh", { state: "completed" }), expectedVersion: 0 });
      expect(await b.purgeFinished({ olderThanMs: 100 })).toBe(2);
      expect(await a.tasks.load("r-done")).toBeUndefined();
      expect(await a.tasks.load("r-failed")).toBeUndefined();
      expect(await a.events.read("r-done")).toEqual([]);
      expect(await a.pushConfigs.list("r-done")).toEqual([]);
      expect(await a.tasks.load("r-running")).toMatchObject({ version: 1 });
      expect(await a.tasks.load("r-fresh")).toMatchObject({ version: 1 });
      expect(await a.events.read("r-running")).toHaveLength(1);
      expect(await a.pushConfigs.list("r-running")).toHaveLength(1);
      expect((await a.tasks.query({})).tasks.map((t) => t.id).sort()).toEqual(["r-fresh", "r-running"]);
    });

    const restartTest = harness.privateEngine ? it : it.skip;
    restartTest("gives clean errors while the engine restarts and recovers by itself, with nothing corrupted", async () => {
      const control = await harness.privateEngine!();
      engines.push(control);
      const ns = namespace();
      const a = await harness.open(ns, control.url);
      opened.push(a);
      const b = await harness.open(ns, control.url);
      opened.push(b);
      await a.tasks.commit({ task: task("s1", { metadata: { n: 1 } }), expectedVersion: 0, events: [{ event: { n: 1 }, final: false }] });
      const received: LoggedEvent[] = [];
      const sub = b.events.subscribe("s1", (e) => received.push(e));
      await sub.ready;
      await eventually(() => expect(received).toHaveLength(1));

      const lateEvents: LoggedEvent[] = [];
      const lateErrors: StoreError[] = [];
      let lateSubscription: { close(): void } | undefined;
      await control.stop();
      try {
        // While the engine is down every operation fails with a typed error, in bounded time.
        const failures = await Promise.allSettled([
          a.tasks.load("s1"),
          a.tasks.commit({ task: task("s2"), expectedVersion: 0 }),
          a.events.read("s1"),
          a.outbox.claim("x", { leaseMs: 1000 }),
          a.leases.acquire("s1", "x", 1000),
          b.tasks.query({}),
        ]);
        for (const failure of failures) {
          expect(failure.status).toBe("rejected");
          expect((failure as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
        }
        // A subscription opened meanwhile says it is not ready yet, and catches up once the engine is back.
        const late = a.events.subscribe("s1", (e) => lateEvents.push(e), { onError: (e) => lateErrors.push(e) });
        await expect(late.ready).rejects.toBeInstanceOf(StoreUnavailableError);
        lateSubscription = late;
      } finally {
        await control.start();
      }
      // The same store objects recover by themselves.
      await eventually(async () => expect(await a.tasks.load("s1")).toMatchObject({ version: 1 }), 30_000);
      await eventually(async () => expect(await b.tasks.load("s1")).toMatchObject({ version: 1 }), 30_000);
      expect(await a.tasks.load("s2")).toBeUndefined(); // the failed write did not half-happen
      const current = (await a.tasks.load("s1"))!;
      const next = await a.tasks.commit({ task: { ...current.task, metadata: { n: 2 } }, expectedVersion: current.version, events: [{ event: { n: 2 }, final: true }] });
      expect(next).toEqual({ version: 2, sequences: [2] });
      // The live subscription resumed: the event written after the restart arrives, once.
      await eventually(() => expect(received.map((e) => e.seq)).toEqual([1, 2]), 30_000);
      await eventually(() => expect(lateEvents.map((e) => e.seq)).toEqual([1, 2]), 30_000);
      expect(lateErrors.every((e) => e instanceof StoreUnavailableError)).toBe(true);
      sub.close();
      lateSubscription?.close();
    });
  });
}

/** A TCP server on 127.0.0.1 that accepts connections and never answers: an engine that hangs. */
export async function blackHole(): Promise<{ port: number; close(): Promise<void> }> {
  const { createServer } = await import("node:net");
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as import("node:net").AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((ok) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => ok());
      }),
  };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const hole = await blackHole();
  await hole.close();
  return hole.port;
}

/**
 * Connection failures: an engine that is not there, or that accepts and never answers, gives a
 * StoreUnavailableError (the per-test time limit is the "no hang" bound, far above the store's timeouts).
 */
export function unreachableEngineSuite(name: string, connect: (url: (port: number) => string) => Promise<A2AStore>, url: (port: number) => string): void {
  describe(`${name} store when the engine is unreachable`, () => {
    it("fails to connect with StoreUnavailableError when nothing listens", { timeout: 15_000 }, async () => {
      const port = await closedPort();
      await expect(connect(() => url(port))).rejects.toBeInstanceOf(StoreUnavailableError);
    });
    it("fails with StoreUnavailableError, not a hang, when the engine never answers", { timeout: 15_000 }, async () => {
      const hole = await blackHole();
      try {
        await expect(connect(() => url(hole.port))).rejects.toBeInstanceOf(StoreUnavailableError);
      } finally {
        await hole.close();
      }
    });
  });
}

/** The round trips of each store operation (engines count the statements they send). */
export function roundTripSuite(name: string, open: (ns: string) => Promise<A2AStore & { roundTrips: { readonly count: number } }>, drop: (ns: string) => Promise<void>): void {
  describe(`${name} store round trips`, () => {
    it("does each operation in one round trip (a commit with its events and push notifications included)", async () => {
      const ns = namespace();
      const store = await open(ns);
      try {
        // Warm up (scripts loaded, connections open).
        await store.tasks.commit({ task: task("warm"), expectedVersion: 0, events: [{ event: { n: 0 }, final: false }], pushes: [{ taskId: "warm", target: {}, payload: {} }] });
        await store.tasks.query({});
        await store.outbox.claim("w", { leaseMs: 1 });
        const trips: Record<string, number> = {};
        const measure = async (label: string, op: () => Promise<unknown>) => {
          const before = store.roundTrips.count;
          await op();
          trips[label] = store.roundTrips.count - before;
        };
        await measure("commit (create)", () => store.tasks.commit({ task: task("rt"), expectedVersion: 0 }));
        await measure("load", () => store.tasks.load("rt"));
        await measure("commit (update + 1 event + 1 push)", () =>
          store.tasks.commit({ task: task("rt", { state: "completed" }), expectedVersion: 1, events: [{ event: { n: 1 }, final: true }], pushes: [{ taskId: "rt", target: {}, payload: {} }] }),
        );
        await measure("commit (create + lease)", () => store.tasks.commit({ task: task("rt2"), expectedVersion: 0, lease: { acquire: "o", ttlMs: 10_000 } }));
        await measure("commit (final + event + release)", () =>
          store.tasks.commit({ task: task("rt2", { state: "completed" }), expectedVersion: 1, events: [{ event: { n: 1 }, final: true }], lease: { release: "o" } }),
        );
        await measure("events.append", () => store.events.append("rt", [{ event: { n: 2 }, final: false }]));
        await measure("events.read", () => store.events.read("rt"));
        await measure("pushConfigs.list", () => store.pushConfigs.list("rt"));
        await measure("outbox.claim", () => store.outbox.claim("o", { leaseMs: 10_000 }));
        await measure("leases.acquire", () => store.leases.acquire("rt", "o", 10_000));
        await measure("leases.renew", () => store.leases.renew("rt", "o", 10_000));
        await measure("leases.release", () => store.leases.release("rt", "o"));
        console.log(`${name} round trips per operation: ${JSON.stringify(trips)}`);
        for (const [label, n] of Object.entries(trips)) expect(n, label).toBe(1);
        // ListTasks: the page and the total, sent together.
        await measure("tasks.query", () => store.tasks.query({ status: "completed" }));
        expect(trips["tasks.query"]).toBeLessThanOrEqual(2);
      } finally {
        await store.close();
        await drop(ns);
      }
    });
  });
}
