/**
 * What every LLM framework bridge reads the same way, whatever the framework: the conversation of a turn
 * as role/text turns (the context's earlier tasks, the task's own history, the user's message), the text
 * of a message or artifact in any version's shape, and the status update a bridge shows a tool's progress
 * with. Each bridge (ai-sdk.ts, langgraph.ts) turns these into its framework's own messages.
 */
import { isObject, type JsonObject } from "../json.js";
import type { EventPublisher, RequestContext } from "../tasks/executor.js";

/** One message of the conversation, as a model reads it. */
export interface ConversationTurn {
  readonly role: "user" | "assistant";
  readonly text: string;
}

/**
 * The conversation of this turn, oldest first: each earlier task of the context (at most `historyTasks`;
 * 0: none), the task's own history (a follow-up turn: after input-required), then the user's message. A
 * task's turns are its history's texts (user → user, agent → assistant); its artifacts' texts, the agent's
 * answers, come after its last user message.
 */
export async function conversationTurns(ctx: RequestContext, historyTasks: number): Promise<ConversationTurn[]> {
  const turns: ConversationTurn[] = [];
  const tasks = historyTasks > 0 ? await ctx.conversation({ limit: historyTasks }) : [];
  for (const task of ctx.task ? [...tasks, ctx.task] : tasks) turns.push(...taskTurns(task));
  turns.push({ role: "user", text: ctx.text });
  return turns;
}

function taskTurns(task: JsonObject): ConversationTurn[] {
  const history = Array.isArray(task["history"]) ? task["history"].filter(isObject) : [];
  const answers = (Array.isArray(task["artifacts"]) ? task["artifacts"].filter(isObject) : []).map(textOf).filter((t) => t !== "");
  let lastUser = -1;
  history.forEach((m, i) => {
    if (!isAgent(m)) lastUser = i;
  });
  const out: ConversationTurn[] = [];
  const pushAnswers = () => {
    for (const text of answers) out.push({ role: "assistant", text });
  };
  history.forEach((message, i) => {
    const text = textOf(message);
    if (text !== "") out.push({ role: isAgent(message) ? "assistant" : "user", text });
    if (i === lastUser) pushAnswers();
  });
  if (lastUser < 0) pushAnswers();
  return out;
}

/** The texts of a message's or artifact's text parts, joined (1.0's `{ text }`, 0.x's `{ kind: "text", text }`). */
export function textOf(holder: JsonObject): string {
  const parts = Array.isArray(holder["parts"]) ? holder["parts"] : [];
  return parts
    .filter(isObject)
    .map((p) => (typeof p["text"] === "string" ? p["text"] : ""))
    .join("");
}

/** Whether a message is the agent's ("agent" in 0.x, "ROLE_AGENT" in 1.0). */
function isAgent(message: JsonObject): boolean {
  return typeof message["role"] === "string" && /agent$/i.test(message["role"]);
}

/** A status update (working) whose message is one data part: a tool call, its progress, result or error. */
export function progress(events: EventPublisher, data: Record<string, unknown>): void {
  events.working(events.agentMessage([events.dataPart(data)]));
}

/** An error's message (a thrown non-Error as its string). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
