/**
 * Owner scoping (1.0.1 §13.1; 0.3.0 §4.6): a task created with one credential is invisible to another —
 * getting, canceling or subscribing to it with the second credential answers the binding's TaskNotFound,
 * as for a task that does not exist, and does not touch it. Needs two credentials (`--auth` twice); without
 * them, or when the card declares no security, the checks are reported as skipped with the reason. Binding
 * independent: each probe supplies its calls as {@link TaskCalls}.
 */
import type { OwnerChecks } from "./checks.js";
import { fail, skip, type Runner } from "./schemas.js";

/** What an agent answered a call made with the second credential. */
export type Seen = { readonly notFound: true } | { readonly notFound: false; readonly seen: string };

/** A binding's calls, for the owner checks. */
export interface TaskCalls {
  /** Creates a task with verify's own message, as credential A, without waiting for it to finish: its id. */
  createTask(): Promise<string>;
  /** Calls made as credential B. */
  getAs(id: string): Promise<Seen>;
  cancelAs(id: string): Promise<Seen>;
  subscribeAs(id: string): Promise<Seen>;
  /** Whether the task (read as credential A) is canceled. */
  isCanceled(id: string): Promise<boolean>;
  /** Cancels it as credential A, ignoring what is answered (verify cancels what it started). */
  cancelQuietly(id: string): Promise<void>;
}

export interface OwnerContext {
  /** The card declares a security scheme. */
  readonly secured: boolean;
  /** A second credential was given. */
  readonly twoCredentials: boolean;
  /** The card declares streaming (subscribing needs it). */
  readonly streaming: boolean;
}

export async function runOwnerChecks(run: Runner, checks: OwnerChecks, calls: TaskCalls, context: OwnerContext): Promise<void> {
  const reason = !context.secured
    ? "the card declares no security scheme: callers are not told apart"
    : !context.twoCredentials
      ? "needs a second credential: give --auth twice (credential A creates a task, credential B must not see it)"
      : undefined;
  if (reason !== undefined) {
    for (const check of [checks.get, checks.cancel, checks.subscribe]) await run(check, () => skip(reason));
    return;
  }
  let created: { id: string } | { error: string } | undefined;
  const taskId = async (): Promise<string> => {
    if (created === undefined) {
      try {
        created = { id: await calls.createTask() };
      } catch (error) {
        created = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    return "id" in created ? created.id : skip(`credential A could not create a task: ${created.error}`);
  };
  const expectNotFound = (seen: Seen, what: string) => {
    if (!seen.notFound) fail(`${what} with credential B answered ${seen.seen}`);
  };
  try {
    await run(checks.get, async () => expectNotFound(await calls.getAs(await taskId()), "getting credential A's task"));
    await run(checks.cancel, async () => {
      const id = await taskId();
      const before = await calls.isCanceled(id);
      const seen = await calls.cancelAs(id);
      if (!before && (await calls.isCanceled(id))) fail(`credential B canceled credential A's task (it answered ${seen.notFound ? "not found" : seen.seen})`);
      expectNotFound(seen, "canceling credential A's task");
    });
    await run(checks.subscribe, async () => {
      if (!context.streaming) skip("the card does not declare capabilities.streaming");
      expectNotFound(await calls.subscribeAs(await taskId()), "subscribing to credential A's task");
    });
  } finally {
    if (created !== undefined && "id" in created) await calls.cancelQuietly(created.id).catch(() => undefined);
  }
}
