/**
 * `ctx.conversation()`: the earlier tasks of a turn's conversation (the same contextId, 1.0.1 §3.4.1),
 * read from the task store, only those of the caller's owner scope (§13.1), bounded.
 */
import type { JsonObject } from "../json.js";
import type { VersionedTaskStore } from "../stores/contract.js";

/** Where a turn's context reads its conversation: the task store and the caller's owner scope. */
export interface ConversationSource {
  readonly store: VersionedTaskStore;
  readonly owner: string;
}

/** The key a turn's context keeps its ConversationSource under (not a field an executor sees by name). */
export const TURN_CONVERSATION = Symbol("a2a.turnConversation");

/** At most this many tasks per call (the default is 20). */
export const MAX_CONVERSATION = 100;

/** The context fields `turnConversation` reads. */
interface ConversationHolder {
  readonly taskId: string;
  readonly contextId: string;
  readonly [TURN_CONVERSATION]: ConversationSource;
}

/**
 * The `conversation` method of every turn's context: one function, set as an own enumerable property
 * (like `signal`), so that a copy of the context (`{ ...ctx }`) keeps it. Oldest first, never the
 * current task, at most `limit` of the newest.
 */
export async function turnConversation(this: ConversationHolder, options: { limit?: number } = {}): Promise<JsonObject[]> {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 20), 0), MAX_CONVERSATION);
  if (limit === 0) return [];
  const source = this[TURN_CONVERSATION];
  // Newest first from the store; one more than asked, in case the current task is among them.
  const page = await source.store.query({ owner: source.owner, contextId: this.contextId, pageSize: limit + 1 });
  return page.tasks
    .filter((task) => task["id"] !== this.taskId)
    .slice(0, limit)
    .reverse();
}
