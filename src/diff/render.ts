import type { BindingsDiff } from "./bindings.js";
import type {
  DiffSide,
  DispatchSummary,
  ErrorSummary,
  FieldChange,
  MethodFieldChange,
  MethodSummary,
  Scalar,
  SpecDiff,
  TypeSummary,
  UnionChange,
} from "./diff.js";

/**
 * Renderings of a SpecDiff: `renderText` for the terminal (markers `+` added, `-` removed, `~` changed or
 * renamed), `renderMarkdown` for docs. The JSON form is `JSON.stringify(diff, null, 2)`.
 */

/** How a value is quoted: as is in text, as an inline code span in Markdown. */
type Quote = (text: string) => string;

const plain: Quote = (text) => text;

/** An inline code span (a longer fence when the text holds a backtick). */
const code: Quote = (text) => {
  const fence = text.includes("`") ? "``" : "`";
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
};

// --- titles and summary ---------------------------------------------------------------------------

/** `0.2.5`, or `0.3.0 (with-method.json)` when the file is not the bundled one. */
export function sideLabel(side: DiffSide): string {
  return side.fileName === `a2a-${side.specVersion}.json` ? side.specVersion : `${side.specVersion} (${side.fileName})`;
}

export function titleOf(diff: SpecDiff): string {
  return `A2A ${sideLabel(diff.from)} → ${sideLabel(diff.to)}`;
}

/** One line: `7 methods → 7 methods: 4 added, 4 removed (4 likely renames), 1 changed; 50 types → …`. */
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
  const b = diff.bindings;
  const bindingChanges = (b.from !== null && b.to !== null && b.from.join() !== b.to.join() ? 1 : 0) + (b.grpcService ? 1 : 0) + Object.values(b.rpcs).reduce((n, l) => n + l.length, 0) + Object.values(b.routes).reduce((n, l) => n + l.length, 0);
  if (bindingChanges > 0) parts.push(`bindings: ${count(bindingChanges, "change")}`);
  return parts.join("; ");
}

/** Renamed items count as both added and removed, as a plain comparison of names would. */
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

// --- pieces shared by both renderings -------------------------------------------------------------

function scalarText(value: Scalar): string {
  return value === null ? "none" : JSON.stringify(value);
}

function methodDetails(m: MethodSummary, q: Quote): string {
  const details = [
    m.role !== null ? `role ${m.role}` : undefined,
    `request ${q(m.requestType)}`,
    m.params !== null ? `params ${q(m.params)}` : "no params",
    m.responseType !== null ? `response ${q(m.responseType)}` : undefined,
    m.streaming ? "streaming" : undefined,
  ];
  return details.filter((d): d is string => d !== undefined).join(", ");
}

function methodChangeText(c: MethodFieldChange, q: Quote): string {
  const value = (v: Scalar) => (typeof v === "string" ? q(v) : scalarText(v));
  return `${c.field}: ${value(c.from)} → ${value(c.to)}`;
}

function fieldName(field: string, required: boolean): string {
  return required ? field : `${field}?`;
}

function requiredText(required: boolean): string {
  return required ? "required" : "optional";
}

/** A change to a definition, without its marker: `contextId: string`, `kind: const "text" → "file"`, ... */
function fieldChangeText(c: FieldChange, q: Quote): string {
  switch (c.change) {
    case "kind":
      return `(kind): ${c.from} → ${c.to}`;
    case "added":
    case "removed":
      return q(`${fieldName(c.field, c.required)}: ${c.type}`);
    case "required":
      return `${q(c.field)}: ${requiredText(c.from)} → ${requiredText(c.to)}`;
    case "type":
      return `${c.field === null ? "(type)" : q(c.field)}: ${q(c.from)} → ${q(c.to)}`;
    case "const":
      return `${q(c.field)}: const ${q(JSON.stringify(c.from))} → ${q(JSON.stringify(c.to))}`;
    case "enum":
      return `${c.field === null ? "(enum)" : q(c.field)}: ${enumValuesText(c.added, c.removed, q)}`;
    case "default":
      return `${q(c.field)}: default ${c.from === null ? "none" : q(c.from)} → ${c.to === null ? "none" : q(c.to)}`;
  }
}

function fieldMarker(c: FieldChange): string {
  return c.change === "added" ? "+" : c.change === "removed" ? "-" : "~";
}

function enumValuesText(added: string[], removed: string[], q: Quote): string {
  return [...added.map((v) => `+ ${q(JSON.stringify(v))}`), ...removed.map((v) => `- ${q(JSON.stringify(v))}`)].join(", ");
}

function unionChangeText(u: UnionChange, q: Quote): string {
  const parts = [...u.membersAdded.map((m) => `+ ${q(m)}`), ...u.membersRemoved.map((m) => `- ${q(m)}`)];
  if (u.dispatch) parts.push(`discriminator ${dispatchText(u.dispatch.from, q)} → ${dispatchText(u.dispatch.to, q)}`);
  return parts.join(", ");
}

function dispatchText(d: DispatchSummary, q: Quote): string {
  if (d.kind === "tag") return `tag ${q(JSON.stringify(d.property))}`;
  return d.kind === "presence" ? "property presence" : "none";
}

function errorText(e: ErrorSummary, q: Quote): string {
  return `${e.code} ${q(e.name)}${e.message === null ? "" : ` ${q(JSON.stringify(e.message))}`}`;
}

function errorChangeText(e: SpecDiff["errors"]["changed"][number], q: Quote): string {
  const changes = e.changes.map((c) => `${c.field} ${q(JSON.stringify(c.from))} → ${q(JSON.stringify(c.to))}`);
  return `${e.code}: ${changes.join(", ")}`;
}

// --- text -----------------------------------------------------------------------------------------

export function renderText(diff: SpecDiff): string {
  const lines = [titleOf(diff), summaryLine(diff)];
  const section = (heading: string, body: string[]) => {
    if (body.length > 0) lines.push("", heading, ...body.map((l) => `  ${l}`));
  };
  section("Version facts", diff.facts.map((f) => `~ ${f.fact}: ${scalarText(f.from)} → ${scalarText(f.to)}`));
  section("Methods", textMethods(diff));
  section("Types", textTypes(diff));
  section("Unions", diff.unions.map((u) => `~ ${u.union}: ${unionChangeText(u, plain)}`));
  section("Error codes", [
    ...diff.errors.added.map((e) => `+ ${errorText(e, plain)}`),
    ...diff.errors.removed.map((e) => `- ${errorText(e, plain)}`),
    ...diff.errors.changed.map((e) => `~ ${errorChangeText(e, plain)}`),
  ]);
  section("Bindings", bindingLines(diff.bindings, plain, { added: "+ ", removed: "- ", changed: "~ ", nested: "    " }));
  return `${lines.join("\n")}\n`;
}

/** The bindings' changes, in either rendering: markers (`+`/`-`/`~` in text, words in Markdown). */
function bindingLines(b: BindingsDiff, q: Quote, m: { added: string; removed: string; changed: string; nested: string }): string[] {
  const lines: string[] = [];
  const list = (names: string[]) => (names.length === 0 ? "none" : names.map(q).join(", "));
  if (b.from !== null && b.to !== null && b.from.join() !== b.to.join()) lines.push(`${m.changed}bindings defined: ${list(b.from)} → ${list(b.to)}`);
  if (b.grpcService) lines.push(`${m.changed}gRPC service: ${q(b.grpcService.from)} → ${q(b.grpcService.to)}`);
  for (const r of b.rpcs.added) lines.push(`${m.added}gRPC rpc ${q(r.rpc)} (${q(r.method)}${r.streaming ? ", server-streaming" : ""})`);
  for (const r of b.rpcs.removed) lines.push(`${m.removed}gRPC rpc ${q(r.rpc)} (${q(r.method)}${r.streaming ? ", server-streaming" : ""})`);
  for (const r of b.rpcs.renamed) lines.push(`${m.changed}gRPC rpc ${q(r.from)} → ${q(r.to)} (the same operation: ${r.methodFrom === r.method ? q(r.method) : `${q(r.methodFrom)} → ${q(r.method)}`})`);
  for (const c of b.rpcs.changed) lines.push(`${m.changed}gRPC rpc ${q(c.rpc)}: ${c.field} ${q(c.from)} → ${q(c.to)}`);
  for (const r of b.routes.added) lines.push(`${m.added}HTTP+JSON ${q(r.rpc)}: ${r.routes.map(q).join(", ")}`);
  for (const r of b.routes.removed) lines.push(`${m.removed}HTTP+JSON ${q(r.rpc)}: ${r.routes.map(q).join(", ")}`);
  for (const r of b.routes.changed) {
    lines.push(`${m.changed}HTTP+JSON ${q(r.rpc)}:`);
    for (const route of r.from.filter((x) => !r.to.includes(x))) lines.push(`${m.nested}${m.removed}${q(route)}`);
    for (const route of r.to.filter((x) => !r.from.includes(x))) lines.push(`${m.nested}${m.added}${q(route)}`);
  }
  return lines;
}

function textMethods(diff: SpecDiff): string[] {
  const lines: string[] = [];
  for (const m of diff.methods.added) lines.push(`+ ${m.method} (${methodDetails(m, plain)})`);
  for (const m of diff.methods.removed) lines.push(`- ${m.method} (${methodDetails(m, plain)})`);
  for (const r of diff.methods.renamed) {
    lines.push(`~ ${r.from} → ${r.to} (likely rename; ${r.evidence})`);
    for (const c of r.changes) lines.push(`    ~ ${methodChangeText(c, plain)}`);
  }
  for (const m of diff.methods.changed) {
    lines.push(`~ ${m.method}`);
    for (const c of m.changes) lines.push(`    ~ ${methodChangeText(c, plain)}`);
  }
  return lines;
}

function textTypes(diff: SpecDiff): string[] {
  const lines: string[] = [];
  for (const t of diff.types.added) lines.push(`+ ${t.name} (${t.kind}): ${t.shape}`);
  for (const t of diff.types.removed) lines.push(`- ${t.name} (${t.kind}): ${t.shape}`);
  for (const r of diff.types.renamed) {
    lines.push(`~ ${r.from} → ${r.to} (likely rename; ${r.evidence})`);
    for (const c of r.changes) lines.push(`    ${fieldMarker(c)} ${fieldChangeText(c, plain)}`);
  }
  for (const t of diff.types.changed) {
    lines.push(`~ ${t.name}`);
    for (const c of t.changes) lines.push(`    ${fieldMarker(c)} ${fieldChangeText(c, plain)}`);
  }
  return lines;
}

// --- markdown -------------------------------------------------------------------------------------

export interface MarkdownOptions {
  /** The heading level of the title (default 2); sections are one level below. */
  level?: number;
}

export function renderMarkdown(diff: SpecDiff, options: MarkdownOptions = {}): string {
  const level = options.level ?? 2;
  const heading = (offset: number, text: string) => `${"#".repeat(level + offset)} ${text}`;
  const out: string[] = [heading(0, titleOf(diff)), "", `${summaryLine(diff)}.`];
  const section = (title: string, body: string[]) => {
    if (body.length > 0) out.push("", heading(1, title), "", ...body);
  };
  section("Version facts", diff.facts.map((f) => `- ${code(f.fact)}: ${code(scalarText(f.from))} → ${code(scalarText(f.to))}`));
  section("Methods", markdownMethods(diff));
  section("Types", markdownTypes(diff));
  section("Unions", diff.unions.map((u) => `- ${code(u.union)}: ${unionChangeText(u, code)}`));
  section("Error codes", [
    ...diff.errors.added.map((e) => `- added ${errorText(e, code)}`),
    ...diff.errors.removed.map((e) => `- removed ${errorText(e, code)}`),
    ...diff.errors.changed.map((e) => `- changed ${errorChangeText(e, code)}`),
  ]);
  section("Bindings", bindingLines(diff.bindings, code, { added: "- added ", removed: "- removed ", changed: "- changed ", nested: "  " }));
  return `${out.join("\n")}\n`;
}

function markdownMethods(diff: SpecDiff): string[] {
  const lines: string[] = [];
  for (const m of diff.methods.added) lines.push(`- added ${code(m.method)} (${methodDetails(m, code)})`);
  for (const m of diff.methods.removed) lines.push(`- removed ${code(m.method)} (${methodDetails(m, code)})`);
  for (const r of diff.methods.renamed) {
    lines.push(`- likely renamed ${code(r.from)} → ${code(r.to)} (${r.evidence})`);
    for (const c of r.changes) lines.push(`  - ${methodChangeText(c, code)}`);
  }
  for (const m of diff.methods.changed) {
    lines.push(`- changed ${code(m.method)}`);
    for (const c of m.changes) lines.push(`  - ${methodChangeText(c, code)}`);
  }
  return lines;
}

function markdownTypes(diff: SpecDiff): string[] {
  const blocks: string[][] = [];
  if (diff.types.added.length > 0) blocks.push(["Added:", "", ...typeTable(diff.types.added)]);
  if (diff.types.removed.length > 0) blocks.push(["Removed:", "", ...typeTable(diff.types.removed)]);
  const items: string[] = [];
  for (const r of diff.types.renamed) {
    items.push(`- likely renamed ${code(r.from)} → ${code(r.to)} (${r.evidence})`);
    for (const c of r.changes) items.push(`  - ${fieldChangeMarkdown(c)}`);
  }
  for (const t of diff.types.changed) {
    items.push(`- changed ${code(t.name)}`);
    for (const c of t.changes) items.push(`  - ${fieldChangeMarkdown(c)}`);
  }
  if (items.length > 0) blocks.push(items);
  return blocks.flatMap((block, i) => (i === 0 ? block : ["", ...block]));
}

function typeTable(types: TypeSummary[]): string[] {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  return ["| Type | Kind | Shape |", "| --- | --- | --- |", ...types.map((t) => `| ${code(t.name)} | ${t.kind} | ${cell(code(t.shape))} |`)];
}

function fieldChangeMarkdown(c: FieldChange): string {
  const text = fieldChangeText(c, code);
  return c.change === "added" ? `added ${text}` : c.change === "removed" ? `removed ${text}` : text;
}
