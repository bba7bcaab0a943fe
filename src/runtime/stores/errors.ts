/**
 * The errors a store throws: a conflict, a held lease, an unreachable engine, a bad query.
 */


/** A store failed. `code` says how: "conflict", "unavailable", "invalid", "not-found", "failed". */
export class StoreError extends Error {
  readonly code: "conflict" | "unavailable" | "invalid" | "not-found" | "failed";

  constructor(message: string, code: StoreError["code"], options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = "StoreError";
  }
}

/**
 * Whether a value is a store error of that class, by name: a store built against another copy of this
 * runtime (another generated folder) throws its own classes, which `instanceof` would not recognize.
 */
export function isStoreError<T extends StoreError>(error: unknown, type: abstract new (...args: never[]) => T): error is T {
  return error instanceof type || (error instanceof Error && error.name === type.name && typeof (error as { code?: unknown }).code === "string");
}

/** Another writer updated the task after the version this write read: read again and retry. */
export class TaskVersionConflictError extends StoreError {
  readonly taskId: string;
  readonly expectedVersion: number;
  /** The version the store holds now (0: the task does not exist). */
  readonly actualVersion: number;

  constructor(taskId: string, expectedVersion: number, actualVersion: number) {
    super(
      expectedVersion === 0
        ? `task "${taskId}" already exists (version ${actualVersion})`
        : `task "${taskId}" changed: expected version ${expectedVersion}, found ${actualVersion === 0 ? "no task" : `version ${actualVersion}`}`,
      "conflict",
    );
    this.taskId = taskId;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
    this.name = "TaskVersionConflictError";
  }
}

/** Another instance holds the task's execution lease (and it has not expired): the task is running there. */
export class ExecutionLeaseHeldError extends StoreError {
  readonly taskId: string;
  /** The instance that holds the lease. */
  readonly owner: string;

  constructor(taskId: string, owner: string) {
    super(`task "${taskId}" is running on another instance ("${owner}")`, "conflict");
    this.taskId = taskId;
    this.owner = owner;
    this.name = "ExecutionLeaseHeldError";
  }
}

/** The engine cannot be reached (connection lost, timeout, engine restarting). Retry later. */
export class StoreUnavailableError extends StoreError {
  readonly engine: string;

  constructor(engine: string, message: string, options?: { cause?: unknown }) {
    super(`${engine} store unavailable: ${message}`, "unavailable", options);
    this.engine = engine;
    this.name = "StoreUnavailableError";
  }
}

/** A ListTasks page token this store did not write (or a bad query value). */
export class InvalidStoreQueryError extends StoreError {
  /** The query field at fault, e.g. "pageToken". */
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`, "invalid");
    this.field = field;
    this.name = "InvalidStoreQueryError";
  }
}
