/**
 * `ctx.conversation()`: the earlier tasks of a turn's conversation (the same contextId, 1.0.1 §3.4.1),
 * read from the task store, only those of the caller's owner scope (§13.1), bounded.
 */
import type { JsonObject } from "../json.js";
import type { VersionedTaskStore } from "../stores/contract.js";

/** Where a turn's context reads its conversation (the task runtime is one): the task store, and a caller's owner scope. */
export interface ConversationSource {
  readonly tasks: VersionedTaskStore;
  scopeOf(principal: unknown): string;
}

/** The key a turn's context keeps its ConversationSource under: not enumerable, so a logged context does not show it. */
export const TURN_CONVERSATION = Symbol("a2a.turnConversation");

/** At most this many tasks per call (the default is 20). */
export const MAX_CONVERSATION = 100;

/** The context fields the conversation is read with. */
interface ConversationHolder {
  readonly taskId: string;
  readonly contextId: string;
  readonly principal: unknown;
  readonly [TURN_CONVERSATION]: ConversationSource;
}

export type ConversationReader = (options?: { limit?: number }) => Promise<JsonObject[]>;

/**
 * The `conversation` getter of every turn's context: one function for all of them, an own enumerable
 * property (like `signal`), so that a copy of the context (`{ ...ctx }`) gets the reader of the original.
 */
export function conversationOf(this: ConversationHolder): ConversationReader {
  return (options) => readConversation(this, options);
}

/** Oldest first, never the current task, at most `limit` (default 20, at most 100) of the newest. */
async function readConversation(holder: ConversationHolder, options: { limit?: number } = {}): Promise<JsonObject[]> {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 20), 0), MAX_CONVERSATION);
  if (limit === 0) return [];
  const source = holder[TURN_CONVERSATION];
  // Newest first from the store; one more than asked, in case the current task is among them.
  const page = await source.tasks.query({ owner: source.scopeOf(holder.principal), contextId: holder.contextId, pageSize: limit + 1 });
  return page.tasks
    .filter((task) => task["id"] !== holder.taskId)
    .slice(0, limit)
    .reverse();
}
