import { afterEach, describe, expect, it, vi } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TemplateRenderer } from "../../src/emit/templates.js";
import { httpRoutesFor } from "../../src/emit/protocol.js";
import { loadProtocol } from "../../src/load/protocol.js";
import { httpRoutesOf } from "../../src/proto/binding.js";
import { listFiles } from "../../src/write/list-files.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * The output cache (src/write/output-cache.ts): the pure, costly steps of a generation are kept under the
 * hash of their input and of the code that computes them. What a user sees: a second generation from the
 * same inputs loads none of the compilers and writes the same bytes.
 */

const CLI = join(ROOT, "dist", "bin.cjs");
const PRELOAD = pathToFileURL(join(ROOT, "test", "support", "record-loads.mjs")).href;

/** One CLI generation with its own cache folder: the modules it loaded (paths and URLs), and the files it wrote. */
function generateWithCache(cache: string, out: string, flags: string[] = ["--force"]): { loaded: string[]; files: Record<string, string> } {
  const record = join(tempDir(), "loaded.txt");
  const r = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "generate", "--spec", "0.3.0", "--out", out, ...flags], {
    cwd: tempDir(),
    encoding: "utf8",
    env: { ...process.env, A2A_CODEGEN_CACHE: cache, A2A_TEST_LOADED_FILE: record },
  });
  expect(r.status, r.stderr).toBe(0);
  const loaded = readFileSync(record, "utf8").split("\n");
  const files = Object.fromEntries(listFiles(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
  return { loaded, files };
}

/** Whether a module of the package (not only its package.json, which gives the version in a cache key) was loaded. */
const loads = (loaded: string[], pkg: string, inside = "") =>
  loaded.some((path) => path.includes(`/node_modules/${pkg}/${inside}`) && !path.endsWith(`/node_modules/${pkg}/package.json`));

describe("the output cache", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("a second generation from the same inputs loads no compiler (Handlebars', protobufjs, Ajv, json-schema-to-typescript) and writes the same files", () => {
    const cache = tempDir();
    const first = generateWithCache(cache, join(tempDir(), "out"));
    // The probe sees them when they run: a first run compiles everything but the bundled templates, which
    // the build precompiled (dist/templates.precompiled.json): they run on Handlebars' runtime alone.
    expect(loads(first.loaded, "handlebars", "dist/cjs/handlebars/compiler/")).toBe(false);
    expect(loads(first.loaded, "handlebars", "dist/cjs/handlebars.runtime.js")).toBe(true);
    expect(loads(first.loaded, "protobufjs")).toBe(true);
    expect(loads(first.loaded, "ajv")).toBe(true);
    expect(loads(first.loaded, "json-schema-to-typescript")).toBe(true);
    // ts-morph (and the TypeScript compiler it bundles) is the migrate command's alone: a cold generate never loads it.
    expect(loads(first.loaded, "ts-morph")).toBe(false);
    expect(loads(first.loaded, "@ts-morph/common")).toBe(false);

    const second = generateWithCache(cache, join(tempDir(), "out"));
    expect(loads(second.loaded, "handlebars", "dist/cjs/handlebars/compiler/")).toBe(false);
    // The templates still run, on Handlebars' runtime.
    expect(loads(second.loaded, "handlebars", "dist/cjs/handlebars.runtime.js")).toBe(true);
    expect(loads(second.loaded, "protobufjs")).toBe(false);
    expect(loads(second.loaded, "ajv")).toBe(false);
    expect(loads(second.loaded, "json-schema-to-typescript")).toBe(false);
    expect(second.files).toEqual(first.files);
  });

  it("a plain generate line with work to do runs without yargs (its light parser reads such a line as yargs does); any other line is parsed by yargs", () => {
    const cache = tempDir();
    const plain = generateWithCache(cache, join(tempDir(), "out"), ["--quiet"]);
    expect(loads(plain.loaded, "yargs")).toBe(false);
    expect(Object.keys(plain.files)).toContain("models.ts");
    const forced = generateWithCache(cache, join(tempDir(), "out"), ["--quiet", "--force"]);
    expect(loads(forced.loaded, "yargs")).toBe(true);
    expect(forced.files).toEqual(plain.files);
  });

  it("ts-morph is loaded by `migrate` (which the probe sees), never by `generate`", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.ts"), "export const x = 1;\n");
    const record = join(tempDir(), "loaded.txt");
    const r = spawnSync(process.execPath, ["--import", PRELOAD, CLI, "migrate", "--from", "0.3.0", "--to", "1.0.1", "--dry-run", "a.ts"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, A2A_TEST_LOADED_FILE: record },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("nothing to change");
    expect(loads(readFileSync(record, "utf8").split("\n"), "ts-morph")).toBe(true);
  });

  it("a template the build did not precompile (an override) renders the same from its cached compiled form, and a damaged entry is compiled again", () => {
    const cache = tempDir();
    vi.stubEnv("A2A_CODEGEN_CACHE", cache);
    const view = { header: "// h", modules: ["./models.js"], shadowed: [], shadowedNames: "" };
    const source = "core/index.ts.hbs";
    const overrides = tempDir();
    mkdirSync(join(overrides, "core"));
    writeFileSync(join(overrides, source), `// an override\n${readFileSync(join(ROOT, "templates", source), "utf8")}`);
    const fresh = new TemplateRenderer(overrides).render(source, view);
    expect(fresh.startsWith("// an override\n")).toBe(true);
    const entries = readdirSync(join(cache, "templates"));
    expect(entries).toHaveLength(1);
    expect(new TemplateRenderer(overrides).render(source, view)).toBe(fresh);
    const entry = join(cache, "templates", entries[0] as string);
    writeFileSync(entry, "{ this is not a template spec");
    expect(new TemplateRenderer(overrides).render(source, view)).toBe(fresh);
    expect(readFileSync(entry, "utf8")).toMatch(/"compiler":\[\d+,/);
    // The bundled template itself comes from the build's table: nothing more is compiled into the cache.
    expect(new TemplateRenderer().render(source, view)).toBe(fresh.slice("// an override\n".length));
    expect(readdirSync(join(cache, "templates"))).toHaveLength(1);
  });

  it("the HTTP+JSON routes of a proto are the same read from the cache, and a damaged entry is read from the proto again", () => {
    const cache = tempDir();
    vi.stubEnv("A2A_CODEGEN_CACHE", cache);
    const { ir } = loadProtocol({ spec: "0.3.0" });
    const direct = httpRoutesOf(readFileSync(join(ROOT, "schema", "a2a-0.3.0.proto"), "utf8"));
    expect(direct.length).toBeGreaterThan(5);
    const first = httpRoutesFor(ir);
    expect(httpRoutesFor(ir)).toEqual(first);
    const [entry] = readdirSync(join(cache, "routes"));
    writeFileSync(join(cache, "routes", entry as string), "[{");
    expect(httpRoutesFor(ir)).toEqual(first);
    expect(JSON.parse(readFileSync(join(cache, "routes", entry as string), "utf8"))).toEqual(direct);
  });
});
