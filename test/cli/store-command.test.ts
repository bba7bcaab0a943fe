/**
 * Issue 36: `a2a-codegen store migrate|status --url <url> [--sql]` on SQLite (no server needed): the status
 * of a file, the migrations applied once, printed as SQL that applies as the command would, a file newer
 * than this a2a-codegen refused; and the agent's store refusing a file behind its schema when told not to
 * migrate, naming this command.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SQLITE_MIGRATIONS, SqliteStore } from "../../src/runtime/stores/sqlite.js";
import { ROOT, tempDir } from "../support/project.js";

const KNOWN = SQLITE_MIGRATIONS.length;
/** Every migration's version, "1, 2, …". */
const ALL = SQLITE_MIGRATIONS.map((_, i) => i + 1).join(", ");

function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin.cjs"), ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const tables = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map((r) => r.name);
  } finally {
    db.close();
  }
};

describe("a2a-codegen store (issue 36)", () => {
  it("status of a missing file creates nothing; migrate creates and migrates it once; status then says it is up to date", () => {
    const path = join(tempDir(), "data", "agent.db");
    const before = cli("store", "status", "--url", `sqlite:${path}`);
    expect(before.code).toBe(0);
    expect(before.out).toContain(`no database yet (schema version 0 of ${KNOWN}); pending: ${ALL} (`);
    expect(existsSync(path)).toBe(false);
    const migrated = cli("store", "migrate", "--url", `sqlite:${path}`);
    expect(migrated.code, migrated.err).toBe(0);
    expect(migrated.out.trim()).toBe(`${path}: created; applied migration${KNOWN > 1 ? "s" : ""} ${ALL}; schema at version ${KNOWN}`);
    expect(tables(path)).toEqual(["events", "leases", "migrations", "outbox", "push_configs", "task_patches", "tasks"]);
    expect(cli("store", "migrate", "--url", `sqlite:${path}`).out.trim()).toBe(`${path}: schema at version ${KNOWN}, up to date`);
    expect(cli("store", "status", "--url", `sqlite:${path}`).out.trim()).toBe(`${path}: schema at version ${KNOWN} of ${KNOWN}, up to date`);
  });

  it("--sql prints the pending migrations as one transaction and changes nothing; the script gives the schema migrate gives", async () => {
    const dir = tempDir();
    const printed = join(dir, "printed.db");
    const script = cli("store", "migrate", "--url", `sqlite:${printed}`, "--sql");
    expect(script.code, script.err).toBe(0);
    expect(script.out).toMatch(/^BEGIN IMMEDIATE;\n/);
    for (let version = 1; version <= KNOWN; version++) expect(script.out).toContain(`-- migration ${version}\n`);
    expect(script.out.trim()).toMatch(new RegExp(`INSERT INTO migrations \\(version, applied_at\\) VALUES \\(${KNOWN}, .*\\);\\nCOMMIT;$`));
    expect(existsSync(printed)).toBe(false);
    // Applied by hand (as a DBA would with sqlite3), the file is one the store opens without migrating.
    const db = new Database(printed);
    db.exec(script.out);
    db.close();
    const store = await SqliteStore.open({ path: printed, migrate: false });
    await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
    expect((await store.tasks.load("t"))?.version).toBe(1);
    await store.close();
    expect(cli("store", "status", "--url", `sqlite:${printed}`).out).toContain("up to date");
    expect(cli("store", "migrate", "--url", `sqlite:${printed}`, "--sql").out.trim()).toBe("-- the schema is up to date: nothing to apply");
  });

  it("refuses a file newer than it knows, an unknown action and an unknown scheme, exit 2, without echoing the URL", async () => {
    const path = join(tempDir(), "newer.db");
    await (await SqliteStore.open({ path })).close();
    const db = new Database(path);
    db.prepare("INSERT INTO migrations (version, applied_at) VALUES (?, 0)").run(KNOWN + 1);
    db.close();
    const newer = cli("store", "migrate", "--url", `sqlite:${path}`);
    expect(newer.code).toBe(2);
    expect(newer.err).toContain(`the schema is at version ${KNOWN + 1}, newer than this a2a-codegen knows (${KNOWN}); upgrade a2a-codegen`);
    const action = cli("store", "frob", "--url", `sqlite:${path}`);
    expect(action.code).toBe(2);
    expect(action.err).toContain('unknown action "frob"; actions: migrate, status');
    const scheme = cli("store", "status", "--url", "mongo://user:s3cret@host/db");
    expect(scheme.code).toBe(2);
    expect(scheme.err).toContain('unsupported scheme "mongo"');
    expect(scheme.err).not.toContain("s3cret");
    expect(cli("store", "status", "--url", "redis://127.0.0.1:1").out).toContain("keeps no schema");
  });
});
