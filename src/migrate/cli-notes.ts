import { migrationHints } from "./hints.js";
import { migrationRules, type MigrationRules } from "./rules.js";

export { compatNotice } from "./notice.js";

const cache = new Map<string, MigrationRules | undefined>();

/** The "use X instead" hints for a type error after a move from one version to another (none when no rules map the pair). */
export function hints(message: string, from: string, to: string): string[] {
  const key = `${from}>${to}`;
  if (!cache.has(key)) {
    try {
      cache.set(key, migrationRules(from, to));
    } catch {
      cache.set(key, undefined);
    }
  }
  const rules = cache.get(key);
  return rules ? migrationHints(message, rules) : [];
}

/** The line after the type errors of a spec change: `migrate` rewrites them. */
export function migrateLine(from: string, to: string): string {
  return `\`a2a-codegen migrate --from ${from} --to ${to}\` rewrites the protocol shapes of your code (and says what it cannot); see docs/migrating.md.`;
}
