/**
 * The MySQL store's versioned schema (MySQL 8 and MariaDB 10.6 or later): migration N is
 * `mysqlMigrations(prefix)[N - 1]`; never edit a published one, add one. MysqlStore.migrate runs the
 * pending ones under a named lock (GET_LOCK), so that several instances starting at once migrate once.
 *
 * Ids are VARBINARY (UTF-8, compared byte for byte; see sql.ts): a task or context id may take up to 768
 * bytes, an owner 512, which keeps every index under InnoDB's 3072-byte key limit. JSON texts are LONGTEXT
 * in utf8mb4 (kept as written, not reformatted as the JSON type would). Times are epoch ms of the
 * database's clock.
 */

/** The options of every table: InnoDB (row locks, transactions), texts in utf8mb4 compared as bytes. */
const TABLE = "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin";

/** The versioned schema: each migration is a list of statements (MySQL runs DDL one statement at a time). */
export function mysqlMigrations(p: string): string[][] {
  return [
    [
      `CREATE TABLE ${p}tasks (
         id VARBINARY(768) NOT NULL PRIMARY KEY,
         context_id VARBINARY(768) NOT NULL,
         state VARBINARY(255) NOT NULL,
         terminal BOOLEAN NOT NULL,
         status_time BIGINT NOT NULL,
         version INT NOT NULL,
         last_seq BIGINT NOT NULL DEFAULT 0,
         updated_at BIGINT NOT NULL,
         owner VARBINARY(512) NOT NULL DEFAULT '',
         last_write VARBINARY(768) NULL,
         patches INT NOT NULL DEFAULT 0,
         task LONGTEXT NOT NULL,
         INDEX ${p}tasks_recent (status_time, id),
         INDEX ${p}tasks_context (context_id, status_time, id),
         INDEX ${p}tasks_state (state, status_time, id),
         INDEX ${p}tasks_context_state (context_id, state, status_time, id),
         INDEX ${p}tasks_owner (owner, status_time, id),
         INDEX ${p}tasks_owner_context (owner, context_id, status_time, id),
         INDEX ${p}tasks_finished (terminal, updated_at)
       ) ${TABLE}`,
      `CREATE TABLE ${p}events (
         task_id VARBINARY(768) NOT NULL,
         seq BIGINT NOT NULL,
         final BOOLEAN NOT NULL,
         event LONGTEXT NOT NULL,
         PRIMARY KEY (task_id, seq)
       ) ${TABLE}`,
      `CREATE TABLE ${p}task_patches (
         task_id VARBINARY(768) NOT NULL,
         version INT NOT NULL,
         patch LONGTEXT NOT NULL,
         PRIMARY KEY (task_id, version)
       ) ${TABLE}`,
      `CREATE TABLE ${p}push_configs (
         task_id VARBINARY(768) NOT NULL,
         config_id VARBINARY(768) NOT NULL,
         position BIGINT NOT NULL AUTO_INCREMENT,
         config LONGTEXT NOT NULL,
         PRIMARY KEY (task_id, config_id),
         UNIQUE KEY ${p}push_configs_position (position)
       ) ${TABLE}`,
      `CREATE TABLE ${p}outbox (
         id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
         task_id VARBINARY(768) NOT NULL,
         target LONGTEXT NOT NULL,
         payload LONGTEXT NOT NULL,
         attempts INT NOT NULL DEFAULT 0,
         due_at BIGINT NOT NULL,
         owner VARBINARY(512) NULL,
         claim CHAR(24) NULL,
         INDEX ${p}outbox_due (due_at, id),
         INDEX ${p}outbox_claim (claim)
       ) ${TABLE}`,
      `CREATE TABLE ${p}leases (
         task_id VARBINARY(768) NOT NULL PRIMARY KEY,
         owner VARBINARY(512) NOT NULL,
         expires_at BIGINT NOT NULL,
         previous_owner VARBINARY(512) NULL,
         claim CHAR(24) NULL,
         INDEX ${p}leases_expiry (expires_at),
         INDEX ${p}leases_claim (claim)
       ) ${TABLE}`,
    ],
  ];
}

/** The bookkeeping table of the applied migrations. */
export function migrationsTable(p: string): string {
  return `CREATE TABLE IF NOT EXISTS ${p}migrations (version INT NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL) ${TABLE}`;
}

/** The named lock migrations run under (one per database and prefix; GET_LOCK names are at most 64 characters). */
export function migrationLock(p: string): string {
  return `SHA1(CONCAT(DATABASE(), '/', '${p}migrations'))`;
}

/** The tables of the store, in the order they are dropped. */
export function mysqlTables(p: string): string[] {
  return ["events", "task_patches", "tasks", "push_configs", "outbox", "leases", "migrations"].map((t) => `${p}${t}`);
}
