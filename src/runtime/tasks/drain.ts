/**
 * Graceful shutdown of the task runtime (`ServerOptions` → `A2AServerCore.close({ graceMs })`): from the
 * moment it begins, new turns and subscriptions are refused (503 / UNAVAILABLE with Retry-After: another
 * instance takes them); the turns running here get `graceMs` to finish; those still running then are
 * handed over: stopped here (nothing more of them is written) and their execution lease expired at once, so
 * that another instance on the same store takes them over at its next scan (lease-watch.ts; a `resumable`
 * executor's turn is run again there, another's is failed with a message), not a whole lease later.
 */
import { A2AError } from "../a2a-error.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import type { Execution } from "./execution.js";

/** The seconds a client refused by a draining instance is asked to wait (another instance answers at once). */
export const DRAINING_RETRY_AFTER_SECONDS = 1;

/** What a call gets from an instance that is shutting down: retryable, 503 on HTTP, UNAVAILABLE on gRPC (1.0.1 §3.3.2). */
export function shuttingDownError(): A2AError {
  return new A2AError(
    JSON_RPC_ERROR.internalError,
    "This server is shutting down; retry the call (another instance takes it)",
    { retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS },
    { http: 503, retryAfter: DRAINING_RETRY_AFTER_SECONDS },
  );
}

/** What a drain did: turns that finished within the grace period, and the tasks handed over to another instance. */
export interface DrainOutcome {
  finished: number;
  handedOver: string[];
}

/**
 * Waits up to `graceMs` for the executions running on this instance (a turn started meanwhile, queued
 * behind one of them, is waited for too), then hands over each still running.
 */
export async function drainExecutions(
  executions: ReadonlyMap<string, Execution>,
  graceMs: number,
  handOver: (execution: Execution, waitMs: number) => Promise<boolean>,
): Promise<DrainOutcome> {
  const deadline = Date.now() + Math.max(0, graceMs);
  const seen = new Set<Execution>();
  for (;;) {
    const running = [...executions.values()].filter((e) => !e.done);
    for (const e of running) seen.add(e);
    const left = deadline - Date.now();
    if (running.length === 0 || left <= 0) break;
    // The first to end lets the loop look again (a queued turn of the same task may start then).
    await settledWithin(Promise.race(running.map((e) => e.settled)), left);
  }
  const remaining = [...executions.values()].filter((e) => !e.done);
  const handedOver: string[] = [];
  // A short wait for a write in flight of each stopped turn, so that it cannot renew the lease after it expired.
  await Promise.all(
    remaining.map(async (execution) => {
      if (await handOver(execution, 300)) handedOver.push(execution.taskId);
    }),
  );
  return { finished: [...seen].filter((e) => !remaining.includes(e)).length, handedOver };
}

/** Resolves when `promise` settles or `ms` pass, whichever is first; true when it settled. */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true, () => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once no execution runs here and the push outbox is idle (the notifications their commits
 * queued have been attempted): the background work a fetch handler keeps alive with `waitUntil`.
 */
export async function backgroundWorkDone(executions: ReadonlyMap<string, Execution>, outbox: { idle(): Promise<void> } | undefined): Promise<void> {
  for (;;) {
    const running = [...executions.values()].filter((e) => !e.done);
    if (running.length > 0) {
      await Promise.all(running.map((e) => e.settled));
      continue;
    }
    await outbox?.idle();
    if ([...executions.values()].every((e) => e.done)) return;
  }
}
