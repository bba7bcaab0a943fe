import type { MigrationRules } from "./rules.js";

/**
 * "Use X instead" for a type error after a spec change, from the migration rules (the version mapping, or
 * the IR diff): a renamed type or client method, an enum value spelt otherwise, a renamed or dropped field,
 * a union tag the new version does not have.
 */
export function migrationHints(message: string, rules: MigrationRules): string[] {
  const hints: string[] = [];
  const named = (name: string) => new RegExp(`(^|[^\\w/])${name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}($|[^\\w/])`).test(message);
  for (const [from, to] of rules.types) if (named(from)) hints.push(`${from}: use ${to} instead`);
  for (const [from, to] of rules.methods) if (named(from)) hints.push(`client.${from}(): use client.${to}() instead`);
  for (const e of rules.enums.values()) {
    for (const [from, to] of Object.entries(e.values)) if (message.includes(JSON.stringify(from))) hints.push(`${JSON.stringify(from)}: use ${JSON.stringify(to)} instead`);
  }
  const rulesOf = [...rules.objects.values(), ...[...rules.unions.values()].flatMap((u) => u.members.map((m) => m.rule))];
  for (const rule of rulesOf) {
    for (const r of rule.renames) if (named(r.from.split(".").at(-1) as string) && message.includes(`'${r.from.split(".").at(-1)}'`)) hints.push(`${r.from}: use ${r.to}${r.transform?.op === "not" ? " (the opposite value)" : ""} instead`);
    for (const tag of rule.drop) if (message.includes(`'${tag}'`)) hints.push(`${tag}: ${rules.to} has no ${tag} tag; tell the members apart by the field each has`);
  }
  return [...new Set(hints)];
}
