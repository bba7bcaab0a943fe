import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { protoToJsonSchema } from "../../src/proto/to-json-schema.js";
import { escapePointer, ownErrors, typedNodes } from "../../src/proto/inspect.js";
import { ROOT, SCHEMA_DIR } from "../support/project.js";

/**
 * The JSON examples of specification-1.0.1.md, extracted and classified by this file (nothing written by
 * hand), kept as fixtures in test/proto/fixtures/spec-examples (see its README): the protocol objects that
 * are valid against the proto-derived schema (whole examples and objects embedded in any example), each
 * with one single-field mutation that must be rejected; and the examples that are not valid, with their
 * errors, in skipped.json. The test re-extracts everything and compares with the files, so a change of the
 * schema or of the text shows up here. `UPDATE_PROTO_FIXTURES=1 vitest run test/proto/spec-examples.test.ts`
 * rewrites them.
 */

const SPEC_FILE = "specification-1.0.1.md";
const SPEC = join(SCHEMA_DIR, SPEC_FILE);
const DIR = join(ROOT, "test/proto/fixtures/spec-examples");

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (o: object) => import("ajv").Ajv }).default;
const conversion = protoToJsonSchema(join(ROOT, "schema/a2a-1.0.1.proto"));
const definitions = conversion.schema.definitions as Record<string, Schema>;
const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: false });
ajv.addSchema(conversion.schema, "a2a");
const validate = (definition: string, variant?: number) => {
  const v = ajv.getSchema(`a2a#/definitions/${definition}${variant === undefined ? "" : `/anyOf/${variant}`}`);
  if (!v) throw new Error(`no definition ${definition}`);
  return v;
};

type Schema = Record<string, unknown>;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, Json> => typeof v === "object" && v !== null && !Array.isArray(v);

interface Source {
  file: string;
  line: number;
  section: string;
  sseEvent?: number;
  pointer?: string;
}
interface Payload {
  source: Source;
  text: string;
  /** what the example is, or why it has no definition */
  definition: string | undefined;
  reason?: string;
  cleaned: string[];
}

// ---------------------------------------------------------------------------------------------------
// Extraction

interface Fence {
  tag: string;
  line: number;
  section: string;
  body: string[];
  legacy: boolean;
}

function fences(text: string): Fence[] {
  const lines = text.split("\n");
  const out: Fence[] = [];
  let section = "";
  let open: Fence | undefined;
  lines.forEach((line, i) => {
    const fence = /^\s*```(\w*)\s*$/.exec(line);
    if (open) {
      if (fence && fence[1] === "") {
        out.push(open);
        open = undefined;
      } else open.body.push(line);
      return;
    }
    if (/^#{1,6} /.test(line)) section = line.replace(/^#+\s*/, "").trim();
    if (fence) {
      // Appendix A shows the 0.x forms next to the 1.0 ones under "Legacy ..." headings.
      // The nearest such label above the fence, within its section.
      const before = lines.slice(0, i).reverse();
      const end = before.findIndex((l) => /^#{1,6} /.test(l));
      const label = before.slice(0, end < 0 ? undefined : end).find((l) => /^\*\*(Legacy|Current)/.test(l.trim()));
      open = { tag: fence[1] as string, line: i + 1, section, body: [], legacy: label !== undefined && label.includes("Legacy") };
    }
  });
  return out;
}

/** Removes comments and trailing commas outside strings; says what it removed. */
function clean(text: string): { text: string; cleaned: string[] } {
  let out = "";
  const cleaned = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
      cleaned.add("line-comments");
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
      cleaned.add("block-comments");
    } else if (c === ",") {
      const rest = text.slice(i + 1);
      if (/^\s*[}\]]/.test(rest)) cleaned.add("trailing-commas");
      else out += c;
    } else out += c;
  }
  return { text: out, cleaned: [...cleaned].sort() };
}

function dedent(lines: string[]): string {
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)?.[0].length ?? 0));
  return lines.map((l) => l.slice(indent)).join("\n");
}

const REST: Array<[RegExp, string, string]> = [
  [/^POST \/message:send\b/, "SendMessageRequest", "SendMessageResponse"],
  [/^POST \/message:stream\b/, "SendMessageRequest", "StreamResponse"],
  [/^GET \/tasks\?/, "", "ListTasksResponse"],
  [/^GET \/tasks\/[^?/]+( |\?)/, "", "Task"],
  [/^GET \/extendedAgentCard\b/, "", "AgentCard"],
];

/** The definition a plain JSON object is, by its shape (a partial object counts: it then fails). */
function byShape(value: Json): string | undefined {
  if (!isObject(value)) return undefined;
  const keys = Object.keys(value);
  const has = (...k: string[]) => k.some((x) => keys.includes(x));
  if (has("jsonrpc")) return undefined;
  if (has("artifactId")) return "Artifact";
  if (has("role") && has("parts")) return "Message";
  if (has("protected") && has("signature")) return "AgentCardSignature";
  if (has("name", "supportedInterfaces", "skills", "capabilities", "securitySchemes")) return "AgentCard";
  const partKeys = ["text", "raw", "url", "data", "metadata", "filename", "mediaType", "kind", "file"];
  if (keys.length > 0 && keys.every((k) => partKeys.includes(k)) && has("text", "raw", "url", "data", "file")) return "Part";
  return undefined;
}

export function extractPayloads(): Payload[] {
  const text = readFileSync(SPEC, "utf8");
  const out: Payload[] = [];
  const requestsById = new Map<string, string>(); // JSON-RPC id → method
  let lastHttpRequest: string | undefined;
  for (const fence of fences(text)) {
    if (fence.tag !== "json" && fence.tag !== "http") continue;
    const source: Source = { file: SPEC_FILE, line: fence.line, section: fence.section };
    const body = dedent(fence.body);
    let pieces: Array<{ text: string; sseEvent?: number; expected?: string; reason?: string }> = [];
    if (fence.tag === "json") pieces = [{ text: body }];
    else {
      const [head, ...rest] = body.split(/\n\s*\n/);
      const first = (head ?? "").split("\n")[0] ?? "";
      const content = rest.join("\n\n").trim();
      const isResponse = first.startsWith("HTTP/");
      if (!isResponse) lastHttpRequest = first;
      const contentType = /Content-Type:\s*(\S+)/i.exec(head ?? "")?.[1] ?? "";
      if (content === "") continue;
      if (contentType === "text/event-stream") {
        const events = content.split("\n").filter((l) => l.startsWith("data:"));
        const rest2 = REST.find(([re]) => re.test(lastHttpRequest ?? ""));
        pieces = events.map((l, i) => ({ text: l.replace(/^data:\s*/, ""), sseEvent: i + 1, expected: rest2?.[2] ?? "StreamResponse" }));
      } else if (isResponse) {
        const ok = / 200 /.test(first) && contentType === "application/a2a+json";
        const rest2 = REST.find(([re]) => re.test(lastHttpRequest ?? ""));
        pieces = [ok && rest2 ? { text: content, expected: rest2[2] } : { text: content, reason: `HTTP+JSON ${ok ? "response of an unknown endpoint" : "error body (google.rpc.Status / problem details): the JSON-RPC schema has no definition for it"}` }];
      } else if (/^POST \/rpc\b/.test(first)) pieces = [{ text: content }];
      else {
        const rest2 = REST.find(([re]) => re.test(first));
        const webhook = /^POST (\{webhook_url\}|\/webhook)/.test(first);
        pieces = [rest2?.[1] ? { text: content, expected: rest2[1] } : webhook ? { text: content, expected: "StreamResponse" } : { text: content, reason: "HTTP request body of an unknown endpoint" }];
      }
    }
    for (const piece of pieces) {
      const src: Source = piece.sseEvent !== undefined ? { ...source, sseEvent: piece.sseEvent } : source;
      const { text: cleanedText, cleaned } = clean(piece.text);
      let value: Json;
      try {
        value = JSON.parse(cleanedText) as Json;
      } catch (error) {
        out.push({ source: src, text: piece.text, definition: undefined, reason: `not JSON after cleaning (${(error as Error).message.replace(/ in JSON at.*$/s, "")})`, cleaned });
        continue;
      }
      let definition: string | undefined = piece.expected;
      let reason = piece.reason;
      if (fence.legacy) {
        definition = undefined;
        reason = "a 0.x (legacy) example of Appendix A";
      } else if (!reason && !definition && isObject(value) && "jsonrpc" in value) {
        if ("method" in value) {
          const method = String(value.method);
          if (definitions[`${method}RpcRequest`]) {
            definition = `${method}RpcRequest`;
            requestsById.set(JSON.stringify(value.id), method);
          } else reason = `JSON-RPC request with a placeholder method "${method}"`;
        } else if ("error" in value) definition = "JSONRPCErrorResponse";
        else if ("result" in value) {
          const method = requestsById.get(JSON.stringify(value.id));
          if (method) definition = `${method}RpcSuccessResponse`;
          else reason = "JSON-RPC result with no earlier request of the same id";
        }
      } else if (!reason && !definition) {
        definition = byShape(value);
        if (!definition) reason = "not a protocol object (no definition has this shape)";
      }
      out.push({ source: src, text: JSON.stringify(value), definition, ...(reason ? { reason } : {}), cleaned });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Fixtures

interface Fixture {
  source: Source;
  definition: string;
  mutation?: { kind: string; op: "remove" | "replace" | "add"; pointer: string; value?: Json; description: string };
  instance: Json;
}
interface Skipped {
  source: Source;
  definition: string | null;
  reason: string;
  errors: string[];
  cleaned: string[];
}

function shape(value: Json): string {
  if (Array.isArray(value)) return `[${[...new Set(value.map(shape))].sort().join("|")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k}:${["role", "state", "status"].includes(k) && typeof value[k] === "string" ? JSON.stringify(value[k]) : shape(value[k] as Json)}`)
      .join(",")}}`;
  }
  return value === null ? "null" : typeof value;
}

const get = (doc: Json, pointer: string): Json =>
  pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<Json>((v, k) => (Array.isArray(v) ? (v[Number(k)] as Json) : isObject(v) ? (v[k] as Json) : null), doc);

function applyMutation(instance: Json, mutation: NonNullable<Fixture["mutation"]>): Json {
  const copy = structuredClone(instance);
  const at = mutation.pointer.lastIndexOf("/");
  const parent = get(copy, mutation.pointer.slice(0, at));
  const key = mutation.pointer.slice(at + 1).replace(/~1/g, "/").replace(/~0/g, "~");
  if (Array.isArray(parent)) {
    if (mutation.op === "remove") parent.splice(Number(key), 1);
    else parent[Number(key)] = mutation.value as Json;
  } else if (isObject(parent)) {
    if (mutation.op === "remove") delete parent[key];
    else parent[key] = mutation.value as Json;
  }
  return copy;
}

/** A small valid instance of a schema, for the second member of a broken oneof. */
function sample(schema: Schema): Json {
  const ref = typeof schema.$ref === "string" ? schema.$ref.replace("#/definitions/", "") : undefined;
  if (ref) return sample(definitions[ref] as Schema);
  if (Array.isArray(schema.anyOf)) return sample(schema.anyOf[0] as Schema);
  if (Array.isArray(schema.enum)) return (schema.enum[1] ?? schema.enum[0]) as Json;
  if (schema.type === "object") {
    const out: Record<string, Json> = {};
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    for (const r of (schema.required ?? []) as string[]) out[r] = sample(props[r] as Schema);
    return out;
  }
  if (schema.type === "array") return schema.minItems ? [sample(schema.items as Schema)] : [];
  if (schema.type === "integer" || schema.type === "number") return 1;
  if (schema.type === "boolean") return true;
  if (typeof schema.pattern === "string") return "AAAA";
  if (schema.format === "date-time") return "2025-01-01T00:00:00Z";
  return "added";
}

type Candidate = NonNullable<Fixture["mutation"]>;

function candidates(definition: string, instance: Json): Candidate[] {
  const out: Candidate[] = [];
  for (const node of typedNodes(definitions, definition, instance)) {
    const def = definitions[node.definition] as Schema;
    if (Array.isArray(def.enum) && typeof node.value === "string") {
      const legacy = node.value.replace(/^(TASK_STATE_|ROLE_)/, "").toLowerCase().replace(/_/g, "-");
      out.push({ kind: "enum-unknown", op: "replace", pointer: node.pointer, value: legacy, description: `${node.definition} ${JSON.stringify(node.value)} replaced by its 0.x spelling ${JSON.stringify(legacy)} (not a ProtoJSON enum name)` });
      continue;
    }
    if (node.union || !isObject(node.value)) continue;
    const schema = (node.variant !== undefined ? (def.anyOf as Schema[])[node.variant] : def) as Schema;
    const markers = node.members ?? [];
    for (const r of (schema.required ?? []) as string[]) {
      if (r in node.value && !markers.includes(r)) {
        out.push({ kind: "remove-required", op: "remove", pointer: `${node.pointer}/${escapePointer(r)}`, description: `required ${node.definition}.${r} removed` });
      }
    }
    if (node.variant !== undefined) {
      const variants = def.anyOf as Schema[];
      for (const [i, v] of variants.entries()) {
        if (i === node.variant) continue;
        const member = ((v.required ?? []) as string[]).find((p) => !((schema.properties ?? {}) as Schema)[p]);
        if (!member) continue;
        const value = sample(((v.properties ?? {}) as Record<string, Schema>)[member] as Schema);
        out.push({ kind: "oneof-second-member", op: "add", pointer: `${node.pointer}/${escapePointer(member)}`, value, description: `${node.definition} given a second oneof member \`${member}\` next to \`${markers[0]}\`` });
        break;
      }
    }
    for (const [k, v] of Object.entries(node.value)) {
      const prop = ((schema.properties ?? {}) as Record<string, Schema>)[k];
      if (!prop || prop.$ref) continue;
      const wrong: Json | undefined = typeof v === "boolean" ? String(v) : typeof v === "string" && prop.type === "string" ? 42 : Array.isArray(v) ? "not-an-array" : undefined;
      if (wrong !== undefined) out.push({ kind: "type-change", op: "replace", pointer: `${node.pointer}/${escapePointer(k)}`, value: wrong, description: `${node.definition}.${k} given a ${typeof wrong} (wrong JSON type)` });
    }
  }
  return out;
}

const KIND_ORDER = ["remove-required", "oneof-second-member", "enum-unknown", "type-change"];

export function buildFixtures(): { valid: Fixture[]; invalid: Fixture[]; skipped: Skipped[] } {
  const payloads = extractPayloads();
  const valid: Fixture[] = [];
  const skipped: Skipped[] = [];
  const seen = new Set<string>();
  const errorsOf = (definition: string, value: Json) =>
    ownErrors(definitions, (d, v) => validate(d, v), definition, value).map((e) => `${e.definition} at ${e.pointer || "/"}: ${e.message}`);
  for (const p of payloads) {
    if (!p.definition) {
      skipped.push({ source: p.source, definition: null, reason: p.reason as string, errors: [], cleaned: p.cleaned });
      continue;
    }
    const value = JSON.parse(p.text) as Json;
    if (validate(p.definition)(value)) {
      seen.add(`${p.definition} ${shape(value)}`);
      valid.push({ source: p.source, definition: p.definition, instance: value });
    } else skipped.push({ source: p.source, definition: p.definition, reason: "invalid against its definition", errors: errorsOf(p.definition, value), cleaned: p.cleaned });
    // Objects inside any example, offered to their own definition (one per shape).
    for (const node of typedNodes(definitions, p.definition, value)) {
      if (node.pointer === "" || node.union || Array.isArray((definitions[node.definition] as Schema).enum)) continue;
      const sub = node.value as Json;
      const key = `${node.definition} ${shape(sub)}`;
      if (seen.has(key) || !isObject(sub) || !validate(node.definition)(sub)) continue;
      seen.add(key);
      valid.push({ source: { ...p.source, pointer: node.pointer }, definition: node.definition, instance: sub });
    }
  }
  const used = new Map<string, number>(KIND_ORDER.map((k) => [k, 0]));
  const invalid: Fixture[] = valid.map((fixture) => {
    const options = candidates(fixture.definition, fixture.instance).filter((c) => !validate(fixture.definition)(applyMutation(fixture.instance, c)));
    const ranked = [...options].sort((a, b) => (used.get(a.kind) as number) - (used.get(b.kind) as number) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    const chosen = ranked[0];
    if (!chosen) throw new Error(`no mutation rejects ${fixture.definition} at line ${fixture.source.line}`);
    used.set(chosen.kind, (used.get(chosen.kind) as number) + 1);
    return { source: fixture.source, definition: fixture.definition, mutation: chosen, instance: applyMutation(fixture.instance, chosen) };
  });
  return { valid, invalid, skipped };
}

const kebab = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, "$1-$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2").toLowerCase();

function slug(f: Fixture): string {
  const where = f.source.pointer ? `-in-${f.source.pointer.split("/").filter((t) => t !== "" && !/^\d+$/.test(t)).pop() ?? "root"}` : "";
  return `${kebab(f.definition)}${kebab(where)}`;
}

function files(): Record<string, string> {
  const { valid, invalid, skipped } = buildFixtures();
  const out: Record<string, string> = {};
  const text = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  valid.forEach((f, i) => {
    const n = String(i + 1).padStart(3, "0");
    out[`valid/${n}-${slug(f)}.json`] = text(f);
    const bad = invalid[i] as Fixture;
    out[`invalid/${n}-${slug(f)}-${bad.mutation?.kind}.json`] = text(bad);
  });
  out["skipped.json"] = text(skipped);
  return out;
}

function onDisk(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sub of ["valid", "invalid"]) {
    const dir = join(DIR, sub);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) out[`${sub}/${f}`] = readFileSync(join(dir, f), "utf8");
  }
  if (existsSync(join(DIR, "skipped.json"))) out["skipped.json"] = readFileSync(join(DIR, "skipped.json"), "utf8");
  return out;
}

const generated = files();
if (process.env.UPDATE_PROTO_FIXTURES) {
  for (const sub of ["valid", "invalid"]) rmSync(join(DIR, sub), { recursive: true, force: true });
  for (const [path, content] of Object.entries(generated)) {
    mkdirSync(join(DIR, path, ".."), { recursive: true });
    writeFileSync(join(DIR, path), content);
  }
}

const load = (prefix: string): Array<[string, Fixture]> =>
  Object.entries(onDisk())
    .filter(([p]) => p.startsWith(prefix))
    .map(([p, t]) => [p, JSON.parse(t) as Fixture]);

describe("specification-1.0.1.md examples against the proto-derived schema", () => {
  it("are on disk exactly as extracted from the text today", () => {
    expect(Object.keys(onDisk()).sort()).toEqual(Object.keys(generated).sort());
    for (const [path, content] of Object.entries(onDisk())) expect(content, path).toBe(generated[path]);
  });

  it("account for every JSON payload of the text: a fixture or a documented skip", () => {
    const payloads = extractPayloads();
    const valid = load("valid/").filter(([, f]) => f.source.pointer === undefined);
    const skipped = JSON.parse(onDisk()["skipped.json"] as string) as Skipped[];
    expect(valid.length + skipped.length).toBe(payloads.length);
    expect(valid.length).toBeGreaterThanOrEqual(20);
    for (const s of skipped) expect(s.reason, JSON.stringify(s.source)).not.toBe("");
  });

  it.each(load("valid/"))("accepts %s", (_name, fixture) => {
    const v = validate(fixture.definition);
    expect(v(fixture.instance), JSON.stringify(v.errors)).toBe(true);
  });

  it.each(load("invalid/"))("rejects %s", (name, fixture) => {
    expect(validate(fixture.definition)(fixture.instance)).toBe(false);
    const valid = load("valid/").find(([p]) => p.slice("valid/".length, "valid/".length + 3) === name.slice("invalid/".length, "invalid/".length + 3));
    expect(valid).toBeDefined();
    expect(applyMutation((valid as [string, Fixture])[1].instance, fixture.mutation as Candidate)).toEqual(fixture.instance);
  });

  it("mutates by removing a required field, breaking a oneof, and an unknown enum value", () => {
    const kinds = new Set(load("invalid/").map(([, f]) => f.mutation?.kind));
    for (const kind of ["remove-required", "oneof-second-member", "enum-unknown"]) expect(kinds).toContain(kind);
  });
});
