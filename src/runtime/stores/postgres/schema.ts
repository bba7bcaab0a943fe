/**
 * The PostgreSQL store's versioned schema: migration N is `migrations(prefix)[N - 1]`; never edit a
 * published one, add one. PostgresStore.migrate runs the pending ones.
 */

/** The versioned schema: migration N is `MIGRATIONS[N - 1]`; never edit a published one, add one. */
export function migrations(p: string): string[] {
  return [
    `CREATE TABLE ${p}tasks (
       id text COLLATE "C" PRIMARY KEY,
       context_id text COLLATE "C" NOT NULL,
       state text COLLATE "C" NOT NULL,
       terminal boolean NOT NULL,
       status_time bigint NOT NULL,
       version integer NOT NULL,
       last_seq bigint NOT NULL DEFAULT 0,
       updated_at timestamptz NOT NULL DEFAULT now(),
       task json NOT NULL
     );
     CREATE INDEX ${p}tasks_recent ON ${p}tasks (status_time, id);
     CREATE INDEX ${p}tasks_context ON ${p}tasks (context_id, status_time, id);
     CREATE INDEX ${p}tasks_state ON ${p}tasks (state, status_time, id);
     CREATE INDEX ${p}tasks_context_state ON ${p}tasks (context_id, state, status_time, id);
     CREATE INDEX ${p}tasks_finished ON ${p}tasks (updated_at) WHERE terminal;
     CREATE TABLE ${p}events (
       task_id text COLLATE "C" NOT NULL REFERENCES ${p}tasks (id) ON DELETE CASCADE,
       seq bigint NOT NULL,
       final boolean NOT NULL,
       event json NOT NULL,
       PRIMARY KEY (task_id, seq)
     );
     CREATE TABLE ${p}push_configs (
       task_id text COLLATE "C" NOT NULL,
       config_id text COLLATE "C" NOT NULL,
       position bigserial NOT NULL,
       config json NOT NULL,
       PRIMARY KEY (task_id, config_id)
     );
     CREATE TABLE ${p}outbox (
       id bigserial PRIMARY KEY,
       task_id text NOT NULL,
       target json NOT NULL,
       payload json NOT NULL,
       attempts integer NOT NULL DEFAULT 0,
       due_at timestamptz NOT NULL DEFAULT now(),
       owner text
     );
     CREATE INDEX ${p}outbox_due ON ${p}outbox (due_at, id);
     CREATE TABLE ${p}leases (
       task_id text COLLATE "C" PRIMARY KEY,
       owner text NOT NULL,
       expires_at timestamptz NOT NULL
     );
     CREATE INDEX ${p}leases_expiry ON ${p}leases (expires_at);`,
    // 2: the owner scope of each task (1.0.1 §13.1), beside the task; ListTasks filters on it.
    `ALTER TABLE ${p}tasks ADD COLUMN owner text COLLATE "C" NOT NULL DEFAULT '';
     CREATE INDEX ${p}tasks_owner ON ${p}tasks (owner, status_time, id);
     CREATE INDEX ${p}tasks_owner_context ON ${p}tasks (owner, context_id, status_time, id);`,
    // 3: the patches of a running task's interim writes kept after its last whole text (patch-policy.ts),
    // by the version each made; a whole write deletes them. The id of each task's last write (writeId).
    `ALTER TABLE ${p}tasks ADD COLUMN last_write text;
     CREATE TABLE ${p}task_patches (
       task_id text COLLATE "C" NOT NULL REFERENCES ${p}tasks (id) ON DELETE CASCADE,
       version integer NOT NULL,
       patch json NOT NULL,
       PRIMARY KEY (task_id, version)
     );`,
  ];
}
