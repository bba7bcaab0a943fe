/**
 * `a2a-codegen store migrate|status --url <store-url> [--sql]`: the schema of a store's database, outside
 * the agent. `status` tells the version the database is at and the migrations this a2a-codegen would apply;
 * `migrate` applies them under the engine's migration lock (SQLite: the IMMEDIATE transaction, the file's
 * writer lock; PostgreSQL: the advisory lock the store takes; MySQL: its named lock); `--sql` prints them
 * instead (the script a DBA runs, with the same lock and bookkeeping), changing nothing.
 *
 * The engine's driver is loaded only here (an optional peer dependency of a2a-codegen): a missing one is
 * a clear error naming the package to install.
 */
import { existsSync } from "node:fs";
import { CodegenError, EXIT_CODES } from "../errors.js";
import type { CliIo } from "../cli-up-to-date.js";

export interface StoreCommandArgs {
  action: "migrate" | "status";
  url: string;
  sql: boolean;
}

/** Runs the command; returns its exit code. */
export async function runStoreCommand(args: StoreCommandArgs, io: CliIo): Promise<number> {
  if (args.action !== "migrate" && args.action !== "status") {
    throw new CodegenError(`unknown action "${String(args.action)}"; actions: migrate, status`, { kind: "usage" });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(args.url)?.[1]?.toLowerCase() ?? "";
  if (scheme === "sqlite" || scheme === "file") return sqlite(args, io);
  if (scheme === "postgres" || scheme === "postgresql") return postgres(args, io);
  if (scheme === "mysql" || scheme === "mariadb") return mysqlStore(args, io);
  if (scheme === "redis" || scheme === "rediss") {
    io.out("redis: the Redis store keeps no schema (its keys are written as they are used): nothing to migrate");
    return EXIT_CODES.ok;
  }
  // The URL itself is not echoed: it may hold a password.
  throw new CodegenError(`--url: unsupported scheme "${scheme}"; expected sqlite:<path>, file:<path>, postgres://…, mysql://… or redis://…`, { kind: "usage" });
}

async function sqlite(args: StoreCommandArgs, io: CliIo): Promise<number> {
  const store = await driver("better-sqlite3", () => import("../runtime/stores/sqlite.js"));
  const path = store.sqlitePathOf(args.url);
  const known = store.SQLITE_MIGRATIONS.length;
  const exists = path === ":memory:" || existsSync(path);
  let current = 0;
  if (exists) {
    const db = store.openSqliteDatabase(path);
    try {
      current = store.sqliteSchemaVersion(db);
      if (current > known) {
        throw new CodegenError(`${path}: the schema is at version ${current}, newer than this a2a-codegen knows (${known}); upgrade a2a-codegen`, { kind: "input" });
      }
      if (args.action === "migrate" && !args.sql) {
        const applied = store.migrateSqlite(db);
        io.out(applied.length === 0 ? `${path}: schema at version ${known}, up to date` : `${path}: applied migration${applied.length > 1 ? "s" : ""} ${applied.join(", ")}; schema at version ${known}`);
        return EXIT_CODES.ok;
      }
    } finally {
      db.close();
    }
  } else if (args.action === "migrate" && !args.sql) {
    const db = store.openSqliteDatabase(path);
    try {
      const applied = store.migrateSqlite(db);
      io.out(`${path}: created; applied migration${applied.length > 1 ? "s" : ""} ${applied.join(", ")}; schema at version ${known}`);
    } finally {
      db.close();
    }
    return EXIT_CODES.ok;
  }
  const pending = Array.from({ length: known - current }, (_, i) => current + 1 + i);
  if (args.sql) {
    io.out(sqliteScript(store.SQLITE_MIGRATIONS, pending));
    return EXIT_CODES.ok;
  }
  const where = exists ? `${path}: schema at version ${current} of ${known}` : `${path}: no database yet (schema version 0 of ${known})`;
  io.out(pending.length === 0 ? `${where}, up to date` : `${where}; pending: ${pending.join(", ")} (\`a2a-codegen store migrate --url ${args.url}\` applies them; the agent also does when it starts)`);
  return EXIT_CODES.ok;
}

/** The SQL of the pending migrations, as one transaction that takes the writer lock first and records each. */
function sqliteScript(migrations: readonly string[], pending: readonly number[]): string {
  if (pending.length === 0) return "-- the schema is up to date: nothing to apply";
  const lines = ["BEGIN IMMEDIATE;", "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);"];
  for (const version of pending) {
    lines.push(`-- migration ${version}`, `${(migrations[version - 1] as string).replace(/\n {3}/g, "\n").trim()};`);
    lines.push(`INSERT INTO migrations (version, applied_at) VALUES (${version}, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));`);
  }
  lines.push("COMMIT;");
  return lines.join("\n");
}

async function postgres(args: StoreCommandArgs, io: CliIo): Promise<number> {
  const { PostgresStore } = await driver("pg", () => import("../runtime/stores/postgres.js"));
  const { migrations } = await import("../runtime/stores/postgres/schema.js");
  const store = await PostgresStore.connect({ connectionString: args.url, migrate: false }).catch((error: unknown) => {
    throw new CodegenError(`postgres: ${(error as Error).message}`, { kind: "io" });
  });
  try {
    const where = `postgres (tables ${store.prefix}*)`;
    if (args.action === "migrate" && !args.sql) {
      const version = await store.migrate().catch((error: unknown) => {
        throw new CodegenError(`postgres: ${(error as Error).message}`, { kind: "input" });
      });
      io.out(`${where}: schema at version ${version}, up to date`);
      return EXIT_CODES.ok;
    }
    const pg = (await import("pg")).default;
    const client = new pg.Client({ connectionString: args.url, connectionTimeoutMillis: 5_000 });
    await client.connect().catch((error: unknown) => {
      throw new CodegenError(`postgres: ${(error as Error).message}`, { kind: "io" });
    });
    let current: number;
    try {
      const table = `${store.prefix}migrations`;
      const { rows } = await client.query<{ exists: boolean }>("SELECT to_regclass($1) IS NOT NULL AS exists", [table]);
      current = rows[0]?.exists ? ((await client.query<{ v: number }>(`SELECT coalesce(max(version), 0)::int AS v FROM ${table}`)).rows[0]?.v ?? 0) : 0;
    } finally {
      await client.end();
    }
    const all = migrations(store.prefix);
    if (current > all.length) {
      throw new CodegenError(`${where}: the schema is at version ${current}, newer than this a2a-codegen knows (${all.length}); upgrade a2a-codegen`, { kind: "input" });
    }
    const pending = Array.from({ length: all.length - current }, (_, i) => current + 1 + i);
    if (args.sql) {
      io.out(postgresScript(store.prefix, all, pending));
      return EXIT_CODES.ok;
    }
    io.out(statusLine(`${where}: schema at version ${current} of ${all.length}`, pending, "postgres://…"));
    return EXIT_CODES.ok;
  } finally {
    await store.close();
  }
}

/** The SQL of PostgreSQL's pending migrations: one transaction under the advisory lock the store takes, recording each. */
function postgresScript(prefix: string, migrations: readonly string[], pending: readonly number[]): string {
  if (pending.length === 0) return "-- the schema is up to date: nothing to apply";
  const lines = [
    "BEGIN;",
    `SELECT pg_advisory_xact_lock(hashtext('${prefix}migrations'));`,
    `CREATE TABLE IF NOT EXISTS ${prefix}migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());`,
  ];
  for (const version of pending) {
    lines.push(`-- migration ${version}`, `${unindent(migrations[version - 1] as string)};`, `INSERT INTO ${prefix}migrations (version) VALUES (${version});`);
  }
  lines.push("COMMIT;");
  return lines.join("\n");
}

async function mysqlStore(args: StoreCommandArgs, io: CliIo): Promise<number> {
  const { MysqlStore, mysqlMigrations, migrationLock, migrationsTable } = await driver("mysql2", () => import("../runtime/stores/mysql.js"));
  const prefix = "a2a_";
  const where = `mysql (tables ${prefix}*)`;
  if (args.action === "migrate" && !args.sql) {
    // Connecting migrates, under the store's named lock; a newer schema is refused.
    const migrated = await MysqlStore.connect({ url: args.url, tablePrefix: prefix }).catch((error: unknown) => {
      const message = (error as Error).message;
      throw new CodegenError(`mysql: ${message}`, { kind: /newer than/.test(message) ? "input" : "io" });
    });
    const version = await migrated.schemaVersion();
    await migrated.close();
    io.out(`${where}: schema at version ${version}, up to date`);
    return EXIT_CODES.ok;
  }
  const mysql = (await import("mysql2/promise")).default;
  const connection = await mysql.createConnection({ uri: args.url.replace(/^mariadb:/i, "mysql:"), connectTimeout: 5_000 }).catch((error: unknown) => {
    throw new CodegenError(`mysql: ${(error as Error).message}`, { kind: "io" });
  });
  let current = 0;
  try {
    const [tables] = await connection.query<Array<import("mysql2/promise").RowDataPacket>>(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
      [`${prefix}migrations`],
    );
    if (Number(tables[0]?.n ?? 0) > 0) {
      const [rows] = await connection.query<Array<import("mysql2/promise").RowDataPacket>>(`SELECT coalesce(max(version), 0) AS v FROM ${prefix}migrations`);
      current = Number(rows[0]?.v ?? 0);
    }
  } finally {
    await connection.end();
  }
  const all = mysqlMigrations(prefix);
  if (current > all.length) {
    throw new CodegenError(`${where}: the schema is at version ${current}, newer than this a2a-codegen knows (${all.length}); upgrade a2a-codegen`, { kind: "input" });
  }
  const pending = Array.from({ length: all.length - current }, (_, i) => current + 1 + i);
  if (args.sql) {
    if (pending.length === 0) {
      io.out("-- the schema is up to date: nothing to apply");
      return EXIT_CODES.ok;
    }
    // MySQL commits each DDL statement by itself: the script holds the store's named lock instead of a transaction.
    const lines = [`SELECT GET_LOCK(${migrationLock(prefix)}, 60);`, `${migrationsTable(prefix)};`];
    for (const version of pending) {
      lines.push(`-- migration ${version}`, ...(all[version - 1] as string[]).map((statement) => `${unindent(statement)};`));
      lines.push(`INSERT INTO ${prefix}migrations (version, applied_at) VALUES (${version}, TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000);`);
    }
    lines.push(`DO RELEASE_LOCK(${migrationLock(prefix)});`);
    io.out(lines.join("\n"));
    return EXIT_CODES.ok;
  }
  io.out(statusLine(`${where}: schema at version ${current} of ${all.length}`, pending, "mysql://…"));
  return EXIT_CODES.ok;
}

/** What `status` says of a server database: its version and what `migrate` would apply. */
function statusLine(where: string, pending: readonly number[], url: string): string {
  return pending.length === 0
    ? `${where}, up to date`
    : `${where}; pending: ${pending.join(", ")} (\`a2a-codegen store migrate --url ${url}\` applies them, \`--sql\` prints them; the agent also applies them when it starts)`;
}

/** A migration's text without the indentation it has in the source (the common indentation of its later lines). */
function unindent(text: string): string {
  const lines = text.trim().split("\n");
  const indents = lines.slice(1).filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l, i) => (i === 0 ? l : l.slice(common))).join("\n");
}

/** Loads an engine's store module; a missing driver is an error naming the package to install. */
async function driver<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(`'${name}'`)) {
      throw new CodegenError(`the store commands need the ${name} package for this URL: npm install ${name === "better-sqlite3" ? "better-sqlite3@^12" : name}`, { kind: "usage" });
    }
    throw error;
  }
}
