import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMPAT_TABLES } from "../compat/tables.js";
import { CodegenError } from "../errors.js";
import { PACKAGE_ROOT } from "../scaffold/codegen-spec.js";
import { bundledVersions } from "../schema/load.js";
import { migrationRules, type MigrationRules, type ObjectRule } from "./rules.js";

/** docs/migrating.md, whose section between these markers is `renderMigrationRules()`. */
export const MIGRATING_DOC = join(PACKAGE_ROOT, "docs", "migrating.md");
const START = "<!-- migrate-rules:start -->\n";
const END = "<!-- migrate-rules:end -->";

/**
 * The version pairs `migrate` documents: each pair a compat table maps (both ways), then each pair of
 * consecutive bundled versions (from their IR diff, or refused, with why).
 */
export function documentedPairs(): Array<[string, string]> {
  const pairs: Array<[string, string]> = COMPAT_TABLES.flatMap((t): Array<[string, string]> => [
    [t.compat, t.primary],
    [t.primary, t.compat],
  ]);
  const versions = bundledVersions();
  for (let i = 1; i < versions.length; i++) {
    const pair: [string, string] = [versions[i - 1] as string, versions[i] as string];
    if (!pairs.some(([a, b]) => a === pair[0] && b === pair[1])) pairs.push(pair);
  }
  return pairs;
}

/** The shape changes `migrate` makes for each documented pair, as Markdown, from the rules it runs on. */
export function renderMigrationRules(): string {
  const out: string[] = [];
  for (const [from, to] of documentedPairs()) {
    let rules: MigrationRules;
    try {
      rules = migrationRules(from, to);
    } catch (error) {
      if (!(error instanceof CodegenError)) throw error;
      out.push(`### ${from} → ${to}`, "", `Refused: ${error.problem.replace(/^no mapping from \S+ to \S+: /, "")}.`, "");
      continue;
    }
    out.push(`### ${from} → ${to}`, "", `Rules from the ${rules.source === "mapping" ? "version mapping (src/compat/derive.ts and the table in src/compat/table.ts)" : "IR diff (src/diff/diff.ts)"}.`, "");
    out.push(...section(rules));
  }
  return out.join("\n");
}

function section(rules: MigrationRules): string[] {
  const lines: string[] = [];
  const list = (title: string, items: string[]) => {
    if (items.length > 0) lines.push(`**${title}:** ${items.join(", ")}.`, "");
  };
  list("Import paths", [`\`…/a2a-${rules.from}/…\` → \`…/a2a-${rules.to}/…\``]);
  list("Types renamed", [...rules.types].filter(([a]) => !/^is[A-Z]/.test(a) || !rules.types.has(a.slice(2))).map(([a, b]) => `\`${a}\` → \`${b}\``));
  list("Guards renamed", [...rules.types].filter(([a]) => /^is[A-Z]/.test(a) && rules.types.has(a.slice(2))).map(([a, b]) => `\`${a}\` → \`${b}\``));
  list("Types with several counterparts (reported, not renamed)", [...rules.ambiguous].map(([a, b]) => `\`${a}\` → ${b.map((x) => `\`${x}\``).join(" or ")}`));
  list("Guards of members it has no more, become presence tests", [...rules.guards].map(([g, x]) => `\`${g}(v)\` (\`${x.field}: ${JSON.stringify(x.value)}\`)`));
  list("Client methods renamed", [...rules.methods].map(([a, b]) => `\`${a}()\` → \`${b}()\``));
  list("Protocol strings", [...rules.strings].map(([a, b]) => `\`"${a}"\` → \`"${b}"\``));
  for (const [method, members] of rules.wrapped) {
    list(`\`${method}()\` results, wrapped by what they are`, members.map((m) => `${Object.entries(m.tags).map(([k, v]) => `\`${k}: ${JSON.stringify(v)}\``).join(" ")} \`${m.definition}\` → \`{ ${m.property} }\``));
  }
  for (const [name, e] of rules.enums) {
    list(`\`${name}\` values`, [...Object.entries(e.values).map(([a, b]) => `\`"${a}"\` → \`"${b}"\``), ...e.gone.map((v) => `\`"${v}"\` (none: reported)`)]);
  }
  for (const [name, u] of rules.unions) {
    lines.push(`**\`${name}\` members** (a literal is the member whose tests hold; \`x.kind === …\` checks become presence checks):`, "");
    for (const m of u.members) {
      const when = m.when.map((c) => ("equals" in c ? `\`${c.path}: ${JSON.stringify(c.equals)}\`` : `\`${c.path}\` present`)).join(" and ");
      lines.push(`- ${when} → ${m.rule.target}${change(m.rule) ? `: ${change(m.rule)}` : ""}`);
    }
    lines.push("");
  }
  const objects = [...rules.objects].filter(([, r]) => change(r) !== "");
  if (objects.length > 0) {
    lines.push(`| ${rules.from} object | what changes in a literal (and in reads of its fields) |`, "| --- | --- |");
    for (const [name, r] of objects) lines.push(`| \`${name}\`${r.target !== name ? ` (as \`${r.target}\`)` : ""} | ${change(r).replace(/\|/g, "\\|")} |`);
    lines.push("");
  }
  return lines;
}

function change(r: ObjectRule): string {
  const parts = [
    ...r.drop.map((t) => `\`${t}\` removed`),
    ...Object.entries(r.set).map(([k, v]) => `\`${k}: ${JSON.stringify(v)}\` added`),
    ...r.renames.map((x) => `\`${x.from}\` → \`${x.to}\`${x.transform?.op === "not" ? " (negated)" : x.transform?.op === "first" ? " (its one value)" : x.transform?.op === "list" ? " (as a list)" : ""}`),
    ...r.gone.map((g) => `\`${g.field}\` reported (${g.note})`),
    ...r.computed.map((c) => `\`${c.field}\` reported when missing (${c.note})`),
  ];
  return parts.join("; ");
}

/** docs/migrating.md with its generated section brought up to date; returns the text. */
export function migratingDoc(current: string): string {
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new CodegenError(`docs/migrating.md has no ${START.trim()} … ${END} section`);
  return current.slice(0, start + START.length) + renderMigrationRules() + "\n" + current.slice(end);
}

/** Rewrites docs/migrating.md's generated section (`node -e 'import("./dist/migrate/doc.js").then((m) => m.writeMigratingDoc())'`). */
export function writeMigratingDoc(path = MIGRATING_DOC): void {
  writeFileSync(path, migratingDoc(readFileSync(path, "utf8")));
}
