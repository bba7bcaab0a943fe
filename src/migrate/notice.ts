import { COMPAT_TABLES } from "../compat/tables.js";
import { bundledIR } from "../load/protocol.js";

/**
 * What a spec change means for the agent's existing callers (issue 33): when a2a-codegen can serve the old
 * version beside the new one (a compat table pairs them) and the config does not, the clients of the old
 * version stop working, so `generate` and `card --from --to` say so, naming the one line to add, and point
 * at `migrate` for the user's own code. Undefined when the change keeps the callers.
 */
export function compatNotice(from: string, to: string, compat: string | undefined): string | undefined {
  if (compat !== undefined || from === to) return undefined;
  const table = COMPAT_TABLES.find((t) => t.primary === to && majorMinor(t.compat) === majorMinor(from));
  if (!table) return undefined;
  const old = bundledIR(table.compat);
  const next = bundledIR(to);
  const send = [old.profile.methods.send, next.profile.methods.send];
  const renamed = send[0] !== undefined && send[1] !== undefined && send[0] !== send[1] ? ` (${send[0]} is now ${send[1]})` : "";
  return [
    `Callers speaking A2A ${table.compat} cannot call this agent after the move to ${to}${renamed}, and nothing tells them: they get "method not found".`,
    `  To keep serving them, add this line to a2a-codegen.config.json (or pass --compat ${table.compat}):  "compat": "${table.compat}"`,
    `  To move your own code to ${to}: a2a-codegen migrate --from ${from} --to ${to} (docs/migrating.md)`,
  ].join("\n");
}

function majorMinor(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}
