/** The store contract on SQLite (no server: a temp folder per run, a file per namespace), and what is SQLite's own. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { ExecutionLeaseHeldError, StoreError, TaskVersionConflictError } from "../../../src/runtime/stores/errors.js";
import { SQLITE_MIGRATIONS, SqliteStore, sqlitePathOf } from "../../../src/runtime/stores/sqlite.js";
import { ROOT } from "../../support/project.js";
import { storeContract } from "../../support/stores/contract.js";

const dir = mkdtempSync(join(tmpdir(), "a2a-sqlite-contract-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const open = (ns: string) => SqliteStore.open({ path: join(dir, `${ns}.db`) });
const drop = async (ns: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `${ns}.db${suffix}`), { force: true });
};
storeContract("sqlite", { open, drop });

describe("sqlite store files and migrations", () => {
  it("creates the file and its folder, in WAL mode, migrated once when several stores open it at once", async () => {
    const path = join(dir, "nested", "deeper", "agent.db");
    const stores = await Promise.all(Array.from({ length: 4 }, () => SqliteStore.open({ path })));
    for (const store of stores) await store.close();
    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.prepare("SELECT version FROM migrations ORDER BY version").all()).toEqual(SQLITE_MIGRATIONS.map((_, i) => ({ version: i + 1 })));
    } finally {
      db.close();
    }
  });

  it("refuses a file migrated by a newer store, and one behind its schema when told not to migrate, naming the command", async () => {
    const newer = join(dir, "newer.db");
    await (await SqliteStore.open({ path: newer })).close();
    const db = new Database(newer);
    db.prepare("INSERT INTO migrations (version, applied_at) VALUES (99, 0)").run();
    db.close();
    await expect(SqliteStore.open({ path: newer })).rejects.toThrow(`schema is at version 99, newer than this store knows (${SQLITE_MIGRATIONS.length}); upgrade the agent`);
    const empty = join(dir, "empty.db");
    await expect(SqliteStore.open({ path: empty, migrate: false })).rejects.toThrow(`schema is at version 0, this store needs ${SQLITE_MIGRATIONS.length}; run \`a2a-codegen store migrate --url sqlite:${empty}\``);
  });

  it("keeps a task, its log, its push configs, pending pushes and leases across a restart (the file reopened)", async () => {
    const path = join(dir, "restart.db");
    const before = await SqliteStore.open({ path });
    const task = { id: "r1", contextId: "c", status: { state: "working", timestamp: new Date().toISOString() }, history: [{ role: "user", parts: [{ text: "hi" }] }] };
    await before.tasks.commit({ task, expectedVersion: 0, owner: "alice", events: [{ event: { n: 1 }, final: false }], pushes: [{ taskId: "r1", target: { url: "http://127.0.0.1:1/hook" }, payload: { n: 1 } }], lease: { acquire: "i1", ttlMs: 60_000 } });
    await before.pushConfigs.set("r1", { id: "p1", url: "http://127.0.0.1:1/hook" });
    // A new connection opens the file, as the agent started again does (kill -9 itself: scaffold-durable.test.ts).
    const after = await SqliteStore.open({ path });
    try {
      expect(await after.tasks.load("r1")).toMatchObject({ task, version: 1, owner: "alice", logSeq: 1 });
      expect(await after.events.read("r1")).toEqual([{ seq: 1, final: false, event: { n: 1 } }]);
      expect(await after.pushConfigs.list("r1")).toEqual([{ id: "p1", url: "http://127.0.0.1:1/hook" }]);
      expect(await after.leases.holder("r1")).toMatchObject({ owner: "i1" });
      const claimed = await after.outbox.claim("i2", { leaseMs: 1_000 });
      expect(claimed).toMatchObject([{ taskId: "r1", target: { url: "http://127.0.0.1:1/hook" }, payload: { n: 1 }, attempts: 1 }]);
      expect(await after.outbox.ack(claimed[0]!.id, "i2")).toBe(true);
      expect(await after.outbox.size()).toBe(0);
    } finally {
      await after.close();
      await before.close();
    }
  });

  it("reads the file of sqlite: and file: URLs", () => {
    expect(sqlitePathOf("sqlite:./data/agent.db")).toBe("./data/agent.db");
    expect(sqlitePathOf("sqlite:///var/lib/agent.db")).toBe("/var/lib/agent.db");
    expect(sqlitePathOf("file:agent.db")).toBe("agent.db");
    expect(sqlitePathOf("sqlite:my%20agent.db")).toBe("my agent.db");
    expect(() => sqlitePathOf("sqlite:")).toThrow(/needs a file path/);
  });
});

const task = (id: string, metadata: Record<string, unknown> = {}) => ({ id, contextId: "c", status: { state: "working", timestamp: "2026-01-01T00:00:00.000Z" }, metadata });

describe("sqlite store commits (issue 36: one statement, atomic by itself)", () => {
  it("sends every commit as one statement, whatever it carries, and a refused one as that statement and one read", async () => {
    const store = await open("one-statement");
    try {
      const statements = async (op: () => Promise<unknown>) => {
        const before = store.roundTrips.count;
        await op().catch(() => undefined);
        return store.roundTrips.count - before;
      };
      const hook = { url: "http://127.0.0.1:1/hook" };
      expect(await statements(() => store.tasks.commit({ task: task("s1"), expectedVersion: 0 }))).toBe(1);
      expect(
        await statements(() =>
          store.tasks.commit({ task: task("s2"), expectedVersion: 0, owner: "alice", writeId: "w1", events: [{ event: { n: 1 }, final: false }, { event: { n: 2 }, final: false }], pushes: [{ taskId: "s2", target: hook, payload: { n: 1 } }], lease: { acquire: "i1", ttlMs: 60_000 } }),
        ),
      ).toBe(1);
      // An interim write kept whole, then one kept as its patch.
      const a = task("s2", { step: 1 });
      expect(await statements(() => store.tasks.commit({ task: a, expectedVersion: 1, interim: true, interimText: () => JSON.stringify(a), patch: [{ op: "add", path: "/metadata/step", value: 1 }], events: [{ event: { n: 3 }, final: false }] }))).toBe(1);
      const b = task("s2", { step: 2 });
      expect(await statements(() => store.tasks.commit({ task: b, expectedVersion: 2, interim: true, interimText: () => JSON.stringify(b), patch: [{ op: "replace", path: "/metadata/step", value: 2 }], events: [{ event: { n: 4 }, final: false }], lease: { acquire: "i1", ttlMs: 60_000 } }))).toBe(1);
      const done = { ...task("s2", { step: 3 }), status: { state: "completed", timestamp: "2026-01-01T00:00:01.000Z" } };
      expect(await statements(() => store.tasks.commit({ task: done, expectedVersion: 3, events: [{ event: { n: 5 }, final: true }], pushes: [{ taskId: "s2", target: hook, payload: { n: 2 } }], lease: { release: "i1" } }))).toBe(1);
      expect(await store.tasks.load("s2")).toEqual({ task: done, version: 4, owner: "alice", logSeq: 5 });
      expect((await store.events.read("s2")).map((e) => [e.seq, e.event["n"], e.final])).toEqual([[1, 1, false], [2, 2, false], [3, 3, false], [4, 4, false], [5, 5, true]]);
      expect(await store.outbox.size()).toBe(2);
      expect(await store.leases.holder("s2")).toBeUndefined();

      // Refused: the statement, then the read that names the version (or the lease's holder) in the error.
      const stale = store.tasks.commit({ task: task("s2"), expectedVersion: 3, events: [{ event: { n: 9 }, final: false }] });
      await expect(stale).rejects.toBeInstanceOf(TaskVersionConflictError);
      await expect(stale).rejects.toMatchObject({ expectedVersion: 3, actualVersion: 4 });
      expect(await statements(() => store.tasks.commit({ task: task("s1"), expectedVersion: 0 }))).toBe(2);
      await store.tasks.commit({ task: task("s1"), expectedVersion: 1, lease: { acquire: "i1", ttlMs: 60_000 } });
      const held = store.tasks.commit({ task: task("s1"), expectedVersion: 2, lease: { acquire: "i2", ttlMs: 60_000 } });
      await expect(held).rejects.toBeInstanceOf(ExecutionLeaseHeldError);
      await expect(held).rejects.toMatchObject({ owner: "i1" });
      expect(await statements(() => store.tasks.commit({ task: task("s1"), expectedVersion: 2, lease: { acquire: "i2", ttlMs: 60_000 } }))).toBe(2);
      expect(await store.tasks.load("s1")).toMatchObject({ version: 2, logSeq: 0 });
    } finally {
      await store.close();
      await drop("one-statement");
    }
  });

  it("writes nothing of a commit that fails midway (the statement rolls back what its trigger wrote)", async () => {
    const store = await open("midway");
    try {
      await store.tasks.commit({ task: task("m1"), expectedVersion: 0, events: [{ event: { n: 1 }, final: false }] });
      // An event row already where the next commit's event goes (written by hand): its INSERT fails after the task's UPDATE.
      const db = new Database(join(dir, "midway.db"));
      db.prepare("INSERT INTO events (task_id, seq, final, event) VALUES ('m1', 2, 0, '{}')").run();
      db.close();
      const failed = store.tasks.commit({ task: task("m1", { n: 2 }), expectedVersion: 1, events: [{ event: { n: 2 }, final: false }], pushes: [{ taskId: "m1", target: {}, payload: {} }], lease: { acquire: "i1", ttlMs: 60_000 } });
      await expect(failed).rejects.toBeInstanceOf(StoreError);
      await expect(failed).rejects.toMatchObject({ code: "failed" });
      expect(await store.tasks.load("m1")).toEqual({ task: task("m1"), version: 1, logSeq: 1 });
      expect(await store.outbox.size()).toBe(0);
      expect(await store.leases.holder("m1")).toBeUndefined();
    } finally {
      await store.close();
      await drop("midway");
    }
  });

  it("migrates a file of schema 1 (the commit in a transaction) and commits on to its tasks", async () => {
    const path = join(dir, "schema1.db");
    const db = new Database(path);
    db.exec("CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    db.exec(SQLITE_MIGRATIONS[0]!);
    db.prepare("INSERT INTO migrations (version, applied_at) VALUES (1, 0)").run();
    db.prepare("INSERT INTO tasks (id, task, context_id, state, terminal, status_time, version, last_seq, updated_at) VALUES ('old', ?, 'c', 'working', 0, 0, 3, 2, 0)").run(JSON.stringify(task("old")));
    db.prepare("INSERT INTO events (task_id, seq, final, event) VALUES ('old', 1, 0, '{\"n\":1}'), ('old', 2, 0, '{\"n\":2}')").run();
    db.close();
    const store = await SqliteStore.open({ path });
    try {
      expect(await store.tasks.commit({ task: task("old", { n: 3 }), expectedVersion: 3, events: [{ event: { n: 3 }, final: true }] })).toEqual({ version: 4, sequences: [3] });
      expect((await store.events.read("old")).map((e) => e.event["n"])).toEqual([1, 2, 3]);
    } finally {
      await store.close();
    }
  });

  it("loses no update and no event when processes commit to one task at once (each retrying on conflict)", { timeout: 60_000 }, async () => {
    const path = join(dir, "processes.db");
    const seed = await SqliteStore.open({ path });
    await seed.tasks.commit({ task: task("p", { count: 0 }), expectedVersion: 0 });
    await seed.tasks.commit({ task: task("ready", { count: 0 }), expectedVersion: 0 });
    await seed.close();
    const processes = 3;
    const each = 100;
    // Each process (the built store, dist/) counts itself in on "ready" and waits for the others (so that their
    // commits overlap), then reads the task, counts one more and logs an event, retrying on a conflict, and
    // prints the sequences its commits were given.
    const child = `
      const { SqliteStore } = await import(${JSON.stringify(join(ROOT, "dist", "runtime", "stores", "sqlite.js"))});
      const { TaskVersionConflictError } = await import(${JSON.stringify(join(ROOT, "dist", "runtime", "stores", "errors.js"))});
      const store = await SqliteStore.open({ path: process.argv[1] });
      const countOne = async (id, events) => {
        for (;;) {
          const { task, version } = await store.tasks.load(id);
          await new Promise((next) => setImmediate(next));
          try {
            return await store.tasks.commit({ task: { ...task, metadata: { count: task.metadata.count + 1 } }, expectedVersion: version, events });
          } catch (error) {
            if (!(error instanceof TaskVersionConflictError)) throw error;
          }
        }
      };
      await countOne("ready", []);
      while ((await store.tasks.load("ready")).task.metadata.count < ${processes}) await new Promise((next) => setTimeout(next, 1));
      const mine = [];
      for (let i = 0; i < ${each}; i++) mine.push(...(await countOne("p", [{ event: { by: process.argv[2], i }, final: false }])).sequences);
      await store.close();
      console.log(JSON.stringify(mine));`;
    const outputs = await Promise.all(
      Array.from({ length: processes }, (_, n) =>
        new Promise<{ by: string; sequences: number[] }>((resolveRun, reject) => {
          const proc = spawn(process.execPath, ["--input-type=module", "-e", child, path, `w${n}`], { stdio: ["ignore", "pipe", "pipe"] });
          let out = "";
          let err = "";
          proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
          proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
          proc.on("close", (code) => (code === 0 ? resolveRun({ by: `w${n}`, sequences: JSON.parse(out) as number[] }) : reject(new Error(`process w${n} exited ${code}: ${err}`))));
        }),
      ),
    );
    const store = await SqliteStore.open({ path });
    try {
      expect(await store.tasks.load("p")).toMatchObject({ version: 1 + processes * each, logSeq: processes * each, task: { metadata: { count: processes * each } } });
      const logged = await store.events.read("p");
      expect(logged.map((e) => e.seq)).toEqual(Array.from({ length: processes * each }, (_, i) => i + 1));
      // The sequences a commit returned are those of its own events.
      for (const { by, sequences } of outputs) {
        expect(sequences).toHaveLength(each);
        expect(sequences.map((seq) => logged[seq - 1]!.event)).toEqual(Array.from({ length: each }, (_, i) => ({ by, i })));
      }
    } finally {
      await store.close();
    }
  });
});
