import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { generate, generateAndWrite } from "../../src/generate.js";
import { normalizeSchema } from "../../src/schema/normalize.js";
import { canonicalJson, type Json, type JsonObject } from "../../src/schema/json.js";
import { GENERATED, projectTempDir, readSchema, ROOT, tempDir } from "../support/project.js";
import { addAudioPart, addListTasksMethod } from "../support/derived-schemas.js";

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The output without what names the input file's bytes (header hash, manifest), for comparing inputs that differ only in layout. */
function withoutSourceHash(files: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(files)) {
    if (path === "a2a-codegen.manifest.json") continue;
    out[path] = text.replace(/\(sha256 [0-9a-f]{64}\)/g, "(sha256 …)");
  }
  return out;
}

describe("generator", () => {
  it("is idempotent: two runs give the same bytes, and rewriting changes nothing", async () => {
    const a = await generate({ spec: "0.3.0" });
    const b = await generate({ spec: "0.3.0" });
    expect(b.files).toEqual(a.files);
    const dir = tempDir();
    await generateAndWrite({ spec: "0.1.0", out: dir });
    const first = readFileSync(join(dir, "models.ts"), "utf8");
    await generateAndWrite({ spec: "0.1.0", out: dir });
    expect(readFileSync(join(dir, "models.ts"), "utf8")).toBe(first);
  });

  it("never mutates its input (normalization of a deeply frozen schema of each dialect)", () => {
    for (const version of ["0.1.0", "0.3.0"]) {
      const input = readSchema(version) as JsonObject;
      const before = canonicalJson(input);
      const normalized = normalizeSchema(deepFreeze(input), `a2a-${version}.json`);
      expect(canonicalJson(input)).toBe(before);
      expect(Object.keys(normalized.definitions).length).toBeGreaterThan(40);
      // And the normalized form is the one form: definitions, no titles, refs to #/definitions.
      const text = JSON.stringify(normalized.definitions);
      expect(text).not.toMatch(/"title"|#\/\$defs\//);
    }
  });

  it("does not depend on the order of definitions in the input", async () => {
    for (const version of ["0.1.0", "0.3.0"]) {
      const schema = readSchema(version);
      const key = "$defs" in schema ? "$defs" : "definitions";
      const defs = schema[key] as Record<string, Json>;
      // A fixed shuffle: reversed, then every other one moved to the front.
      const names = Object.keys(defs).reverse();
      const order = [...names.filter((_, i) => i % 2 === 0), ...names.filter((_, i) => i % 2 === 1)];
      const shuffled = { ...schema, [key]: Object.fromEntries(order.map((n) => [n, defs[n] as Json])) };
      const dir = tempDir();
      const file = join(dir, `a2a-${version}.json`);
      writeFileSync(file, JSON.stringify(shuffled, null, 2));
      // The same inputs: a version's proto (its HTTP+JSON and gRPC bindings) sits beside its schema.
      const proto = join(ROOT, "schema", `a2a-${version}.proto`);
      if (existsSync(proto)) copyFileSync(proto, join(dir, `a2a-${version}.proto`));
      // And its spec-text constraints.
      const constraints = join(ROOT, "schema", `a2a-${version}.constraints.json`);
      if (existsSync(constraints)) copyFileSync(constraints, join(dir, `a2a-${version}.constraints.json`));
      const fromShuffled = await generate({ schema: file, overlay: join(ROOT, "schema", `a2a-${version}.overlay.json`) });
      const fromBundled = await generate({ spec: version });
      expect(withoutSourceHash(fromShuffled.files)).toEqual(withoutSourceHash(fromBundled.files));
    }
  });

  it("infers the version of a schema file from the bundled one it is, or is closest to", async () => {
    const dir = tempDir();
    const copy = join(dir, "copy.json");
    writeFileSync(copy, readFileSync(join(ROOT, "schema", "a2a-0.2.5.json")));
    const result = await generate({ schema: copy });
    expect(result.ir.specVersion).toBe("0.2.5");
    expect(result.ir.facts.wellKnownAgentCardPath).toBe("/.well-known/agent.json");
  });
});

/**
 * Schemas derived from 0.3.0 with things the generator has never seen: the same code must handle them.
 */
describe("schemas derived from 0.3.0", () => {
  const work = projectTempDir();
  const outWithMethod = join(work, "with-method");
  const outWithPart = join(work, "with-part");

  beforeAll(async () => {
    // 1. A new request method, `tasks/list`, with its params, success response and response union.
    const withMethod = readSchema("0.3.0") as { definitions: Record<string, JsonObject> };
    addListTasksMethod(withMethod.definitions);
    writeFileSync(join(work, "with-method.json"), JSON.stringify(withMethod, null, 2));

    // 2. A new Part member, `AudioPart`.
    const withPart = readSchema("0.3.0") as { definitions: Record<string, JsonObject> };
    addAudioPart(withPart.definitions);
    writeFileSync(join(work, "with-part.json"), JSON.stringify(withPart, null, 2));

    await generateAndWrite({ schema: join(work, "with-method.json"), out: outWithMethod });
    await generateAndWrite({ schema: join(work, "with-part.json"), out: outWithPart });
  });

  it("a new method comes out in the IR and the method table", async () => {
    const { ir } = await generate({ schema: join(work, "with-method.json") });
    expect(ir.specVersion).toBe("0.3.0");
    expect(ir.versionBasis).toBe("closest-bundled");
    const method = ir.methods.find((m) => m.method === "tasks/list");
    expect(method).toMatchObject({
      requestType: "ListTasksRequest",
      paramsType: "ListTasksParams",
      responseType: "ListTasksResponse",
      streaming: false,
      inRequestUnion: true,
    });
    const protocol = readFileSync(join(outWithMethod, "protocol.ts"), "utf8");
    expect(protocol).toMatch(/"tasks\/list": \{\s+request: Models\.ListTasksRequest;/);
  });

  it("a new method is validated through the request union, with precise errors", async () => {
    const { validators } = (await import(join(outWithMethod, "validators.ts"))) as typeof import("../../generated/a2a-0.3.0/validators.js");
    const v = validators.A2ARequest;
    expect(v({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: { pageSize: 10 } })).toBe(true);
    expect(v({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: { pageSize: "ten" } })).toBe(false);
    expect(v.errors).toEqual([
      { pointer: "/params/pageSize", expected: "integer", got: "string", keyword: "type", message: "/params/pageSize: expected integer, got string" },
    ]);
    expect(v({ jsonrpc: "2.0", id: 1, method: "tasks/lists", params: {} })).toBe(false);
    expect(v.errors).toHaveLength(1);
    expect(v.errors?.[0]?.pointer).toBe("/method");
    expect(v.errors?.[0]?.expected).toMatch(/"tasks\/list"/);
  });

  it("a new Part member is a tag of the union, in types, guards and validators", async () => {
    const { ir } = await generate({ schema: join(work, "with-part.json") });
    const part = ir.unions.find((u) => u.definition === "Part");
    expect(part?.dispatch.kind === "tag" && part.dispatch.tags.map((t) => t.value)).toEqual(["text", "file", "data", "audio"]);
    expect(readFileSync(join(outWithPart, "models.ts"), "utf8")).toMatch(/export function isAudioPart\(/);

    const { validators } = (await import(join(outWithPart, "validators.ts"))) as typeof import("../../generated/a2a-0.3.0/validators.js");
    const message = (part: unknown) => ({ kind: "message", messageId: "m", role: "user", parts: [part] });
    expect(validators.Message(message({ kind: "audio", audio: { uri: "https://x/a.mp3" } }))).toBe(true);
    expect(validators.Message(message({ kind: "audio" }))).toBe(false);
    expect(validators.Message.errors?.map((e) => e.message)).toEqual(['/parts/0/audio: required property "audio" is missing']);
    expect(validators.Message(message({ kind: "video" }))).toBe(false);
    expect(validators.Message.errors?.map((e) => e.message)).toEqual([
      '/parts/0/kind: expected one of "text", "file", "data", "audio", got "video"',
    ]);
  });

  it("both derived outputs compile under strict TypeScript, and the new names type-check", () => {
    const probe = `
import type { ParamsOf, ResultOf } from "${outWithMethod}/index.js";
import { type Part, isAudioPart } from "${outWithPart}/index.js";
const params: ParamsOf<"tasks/list"> = { contextId: "c", pageSize: 5 };
// @ts-expect-error pageSize is an integer
const bad: ParamsOf<"tasks/list"> = { pageSize: "5" };
const result: ResultOf<"tasks/list"> = [];
declare const part: Part;
if (part.kind === "audio") { const uri: string = part.audio.uri; }
if (isAudioPart(part)) { const uri: string = part.audio.uri; }
export {};
`;
    const dir = projectTempDir();
    writeFileSync(join(dir, "probe.ts"), probe);
    const config = JSON.parse(readFileSync(join(ROOT, "test/types/tsconfig.json"), "utf8")) as { include: string[] };
    config.include = [`${outWithMethod}/**/*.ts`, `${outWithPart}/**/*.ts`, "./probe.ts"];
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
    const run = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("leaves the bundled output untouched", () => {
    expect(readFileSync(join(GENERATED, "a2a-0.3.0", "protocol.ts"), "utf8")).not.toMatch(/tasks\/list/);
  });
});
