import type { DiffSide, DispatchSummary, FieldChange, MethodFieldChange, MethodSummary, Scalar, SpecDiff, TypeSummary } from "./diff.js";

/**
 * Renderings of a SpecDiff: `renderText` for the terminal (markers `+` added, `-` removed, `~` changed or
 * renamed), `renderMarkdown` for docs. The JSON form is `JSON.stringify(diff, null, 2)`.
 */

/** `0.2.5`, or `0.3.0 (with-method.json)` when the file is not the bundled one. */
export function sideLabel(side: DiffSide): string {
  return side.fileName === `a2a-${side.specVersion}.json` ? side.specVersion : `${side.specVersion} (${side.fileName})`;
}

export function titleOf(diff: SpecDiff): string {
  return `A2A ${sideLabel(diff.from)} → ${sideLabel(diff.to)}`;
}

/** One line: `7 methods → 7 methods: 4 added, 4 removed (4 likely renames), 2 changed; 49 types → …`. */
export function summaryLine(diff: SpecDiff): string {
  const { from, to } = diff;
  if (diff.unchanged) {
    const identical = from.sha256 === to.sha256 ? " (byte-identical schemas)" : "";
    return `no changes${identical}: ${count(to.methods, "method")}, ${count(to.types, "type")}, ${count(to.errors, "error code")}`;
  }
  const m = diff.methods;
  const t = diff.types;
  const e = diff.errors;
  const parts = [
    countsPart(from.methods, to.methods, "method", m.added.length, m.removed.length, m.renamed.length, m.changed.length),
    countsPart(from.types, to.types, "type", t.added.length, t.removed.length, t.renamed.length, t.changed.length),
    countsPart(from.errors, to.errors, "error code", e.added.length, e.removed.length, 0, e.changed.length),
  ];
  if (diff.unions.length > 0) parts.push(`${count(diff.unions.length, "union")} changed`);
  if (diff.facts.length > 0) parts.push(`${count(diff.facts.length, "version fact")} changed`);
  return parts.join("; ");
}

function countsPart(before: number, after: number, noun: string, added: number, removed: number, renamed: number, changed: number): string {
  const items: string[] = [];
  if (added + renamed > 0) items.push(`${added + renamed} added`);
  if (removed + renamed > 0) items.push(`${removed + renamed} removed${renamed > 0 ? ` (${count(renamed, "likely rename")})` : ""}`);
  if (changed > 0) items.push(`${changed} changed`);
  if (items.length === 0) return `${count(after, noun)}, unchanged`;
  return `${count(before, noun)} → ${count(after, noun)}: ${items.join(", ")}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// --- text -----------------------------------------------------------------------------------------

export function renderText(diff: SpecDiff): string {
  const lines = [titleOf(diff), summaryLine(diff)];
  const section = (heading: string, body: string[]) => {
    if (body.length > 0) lines.push("", heading, ...body.map((l) => `  ${l}`));
  };
  section("Version facts", diff.facts.map((f) => `~ ${f.fact}: ${scalarText(f.from)} → ${scalarText(f.to)}`));
  section("Methods", methodLines(diff, (s) => s));
  section("Types", typeLines(diff));
  section("Unions", diff.unions.map((u) => `~ ${u.union}: ${unionText(u, (s) => s)}`));
  section("Error codes", errorLines(diff, (s) => s));
  return `${lines.join("\n")}\n`;
}

function methodLines(diff: SpecDiff, code: (s: string) => string): string[] {
  const lines: string[] = [];
  for (const m of diff.methods.added) lines.push(`+ ${code(m.method)}${methodDetails(m, code)}`);
  for (const m of diff.methods.removed) lines.push(`- ${code(m.method)}${methodDetails(m, code)}`);
  for (const r of diff.methods.renamed) {
    lines.push(`~ ${code(r.from)} → ${code(r.to)} (likely rename; ${r.evidence})`);
    lines.push(...r.changes.map((c) => `    ${methodChangeText(c, code)}`));
  }
  for (const c of diff.methods.changed) {
    lines.push(`~ ${code(c.method)}`);
    lines.push(...c.changes.map((ch) => `    ${methodChangeText(ch, code)}`));
  }
  return lines;
}

function methodDetails(m: MethodSummary, code: (s: string) => string): string {
  const details = [
    m.role !== null ? `role ${m.role}` : undefined,
    `request ${code(m.requestType)}`,
    m.params !== null ? `params ${code(m.params)}` : "no params",
    m.responseType !== null ? `response ${code(m.responseType)}` : undefined,
    m.streaming ? "streaming" : undefined,
  ].filter((d): d is string => d !== undefined);
  return ` (${details.join(", ")})`;
}

function methodChangeText(c: MethodFieldChange, code: (s: string) => string): string {
  const value = (v: Scalar) => (typeof v === "string" ? code(v) : scalarText(v));
  return `~ ${c.field}: ${value(c.from)} → ${value(c.to)}`;
}

function typeLines(diff: SpecDiff): string[] {
  const lines: string[] = [];
  for (const t of diff.types.added) lines.push(`+ ${typeSummaryText(t)}`);
  for (const t of diff.types.removed) lines.push(`- ${typeSummaryText(t)}`);
  for (const r of diff.types.renamed) {
    lines.push(`~ ${r.from} → ${r.to} (likely rename; ${r.evidence})`);
    lines.push(...r.changes.map((c) => `    ${fieldChangeText(c)}`));
  }
  for (const c of diff.types.changed) {
    lines.push(`~ ${c.name}`);
    lines.push(...c.changes.map((ch) => `    ${fieldChangeText(ch)}`));
  }
  return lines;
}

function typeSummaryText(t: TypeSummary): string {
  return `${t.name} (${t.kind}): ${t.shape}`;
}

/** `+ contextId: string`, `- sessionId?: string`, `~ kind: const "text" → "file"`, ... */
export function fieldChangeText(c: FieldChange): string {
  switch (c.change) {
    case "kind":
      return `~ (kind): ${c.from} → ${c.to}`;
    case "added":
      return `+ ${fieldName(c.field, c.required)}: ${c.type}`;
    case "removed":
      return `- ${fieldName(c.field, c.required)}: ${c.type}`;
    case "required":
      return `~ ${c.field}: ${requiredText(c.from)} → ${requiredText(c.to)}`;
    case "type":
      return `~ ${c.field ?? "(type)"}: ${c.from} → ${c.to}`;
    case "const":
      return `~ ${c.field}: const ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`;
    case "enum":
      return `~ ${c.field ?? "(values)"}: enum ${enumValuesText(c.added, c.removed, (s) => s)}`;
  }
}

function fieldName(field: string, required: boolean): string {
  return required ? field : `${field}?`;
}

function requiredText(required: boolean): string {
  return required ? "required" : "optional";
}

function enumValuesText(added: string[], removed: string[], code: (s: string) => string): string {
  return [...added.map((v) => `+ ${code(JSON.stringify(v))}`), ...removed.map((v) => `- ${code(JSON.stringify(v))}`)].join(", ");
}

function unionText(u: SpecDiff["unions"][number], code: (s: string) => string): string {
  const parts = [...u.membersAdded.map((m) => `+ ${code(m)}`), ...u.membersRemoved.map((m) => `- ${code(m)}`)];
  if (u.dispatch) parts.push(`discriminator ${dispatchText(u.dispatch.from, code)} → ${dispatchText(u.dispatch.to, code)}`);
  return parts.join(", ");
}

function dispatchText(d: DispatchSummary, code: (s: string) => string): string {
  return d.kind === "tag" ? `tag ${code(JSON.stringify(d.property))}` : d.kind === "presence" ? "property presence" : "none";
}

function errorLines(diff: SpecDiff, code: (s: string) => string): string[] {
  const lines: string[] = [];
  const message = (m: string | null) => (m === null ? "" : ` ${code(JSON.stringify(m))}`);
  for (const e of diff.errors.added) lines.push(`+ ${e.code} ${code(e.name)}${message(e.message)}`);
  for (const e of diff.errors.removed) lines.push(`- ${e.code} ${code(e.name)}${message(e.message)}`);
  for (const e of diff.errors.changed) {
    const changes = e.changes.map((c) => `${c.field} ${code(JSON.stringify(c.from))} → ${code(JSON.stringify(c.to))}`);
    lines.push(`~ ${e.code}: ${changes.join(", ")}`);
  }
  return lines;
}

function scalarText(value: Scalar): string {
  return value === null ? "none" : JSON.stringify(value);
}

// --- markdown -------------------------------------------------------------------------------------

export interface MarkdownOptions {
  /** The heading level of the title (default 2); sections are one level below. */
  level?: number;
}

export function renderMarkdown(diff: SpecDiff, options: MarkdownOptions = {}): string {
  const level = options.level ?? 2;
  const h = (offset: number, text: string) => `${"#".repeat(level + offset)} ${text}`;
  const out: string[] = [h(0, titleOf(diff)), "", `${summaryLine(diff)}.`];
  const section = (heading: string, body: string[]) => {
    if (body.length > 0) out.push("", h(1, heading), "", ...body);
  };
  section(
    "Version facts",
    diff.facts.map((f) => `- \`${f.fact}\`: ${code(scalarText(f.from))} → ${code(scalarText(f.to))}`),
  );
  section("Methods", methodLines(diff, code).map(markdownItem));
  section("Types", markdownTypes(diff));
  section("Unions", diff.unions.map((u) => `- ${code(u.union)}: ${unionText(u, code)}`));
  section("Error codes", errorLines(diff, code).map(markdownItem));
  return `${out.join("\n")}\n`;
}

/** A text line (`+ x`, `    ~ y`) as a Markdown list item, nested when indented. */
function markdownItem(line: string): string {
  const indent = /^ */.exec(line)?.[0].length ?? 0;
  const text = line.trimStart();
  const marker = text.slice(0, 1);
  const word = marker === "+" ? "added" : marker === "-" ? "removed" : "changed";
  const rest = text.slice(2);
  return `${indent > 0 ? "  " : ""}- ${word === "changed" && indent === 0 && rest.includes(" → ") && rest.includes("likely rename") ? "renamed" : word} ${rest}`;
}

function markdownTypes(diff: SpecDiff): string[] {
  const lines: string[] = [];
  const table = (title: string, types: TypeSummary[]) => {
    if (types.length === 0) return;
    lines.push(`${title}:`, "", "| Type | Kind | Shape |", "| --- | --- | --- |");
    for (const t of types) lines.push(`| ${code(t.name)} | ${t.kind} | ${cell(code(t.shape))} |`);
    lines.push("");
  };
  table("Added", diff.types.added);
  table("Removed", diff.types.removed);
  const items: string[] = [];
  for (const r of diff.types.renamed) {
    items.push(`- renamed ${code(r.from)} → ${code(r.to)} (likely rename; ${r.evidence})`);
    items.push(...r.changes.map((c) => `  - ${fieldChangeMarkdown(c)}`));
  }
  for (const c of diff.types.changed) {
    items.push(`- changed ${code(c.name)}`);
    items.push(...c.changes.map((ch) => `  - ${fieldChangeMarkdown(ch)}`));
  }
  if (items.length === 0 && lines.length > 0) lines.pop();
  return [...lines, ...items];
}

function fieldChangeMarkdown(c: FieldChange): string {
  switch (c.change) {
    case "kind":
      return `kind: ${c.from} → ${c.to}`;
    case "added":
      return `added ${code(`${fieldName(c.field, c.required)}: ${c.type}`)}`;
    case "removed":
      return `removed ${code(`${fieldName(c.field, c.required)}: ${c.type}`)}`;
    case "required":
      return `${code(c.field)}: ${requiredText(c.from)} → ${requiredText(c.to)}`;
    case "type":
      return `${c.field === null ? "type" : code(c.field)}: ${code(c.from)} → ${code(c.to)}`;
    case "const":
      return `${code(c.field)}: const ${code(JSON.stringify(c.from))} → ${code(JSON.stringify(c.to))}`;
    case "enum":
      return `${c.field === null ? "values" : code(c.field)}: enum ${enumValuesText(c.added, c.removed, code)}`;
  }
}

/** An inline code span (a longer fence when the text holds a backtick). */
function code(text: string): string {
  const fence = text.includes("`") ? "``" : "`";
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Escapes what would end a table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}
