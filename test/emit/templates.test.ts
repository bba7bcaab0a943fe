import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "../../src/generate.js";
import { PRECOMPILED_TEMPLATES_FILE, precompileBundledTemplates } from "../../src/emit/templates.js";
import { listFiles } from "../../src/write/list-files.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");
const run = (args: string[], cwd: string) => spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8" });

describe("the bundled templates, precompiled by the build", () => {
  it("dist/templates.precompiled.json holds every bundled template as Handlebars' compiler writes it, under the key of its source (npm run build writes it)", () => {
    const table = JSON.parse(readFileSync(PRECOMPILED_TEMPLATES_FILE, "utf8")) as Record<string, string>;
    const fresh = precompileBundledTemplates();
    const bundled = listFiles(join(ROOT, "templates")).filter((f) => f.endsWith(".hbs"));
    expect(Object.keys(fresh)).toHaveLength(new Set(bundled.map((f) => readFileSync(join(ROOT, "templates", f), "utf8"))).size);
    // A stale table (a template edited since the build) would differ here: rebuild with `npm run build`.
    expect(table).toEqual(fresh);
  });
});

describe("template overrides", () => {
  it("docs/templates.md lists every bundled template", () => {
    const docs = readFileSync(join(ROOT, "docs", "templates.md"), "utf8");
    const templates = listFiles(join(ROOT, "templates")).filter((f) => f.endsWith(".hbs"));
    expect(templates.length).toBeGreaterThan(15);
    for (const t of templates) expect(docs, t).toContain(`\`${t}\``);
  });

  it("a template in --templates DIR replaces the bundled one of the same path, and only it", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "core"));
    writeFileSync(join(dir, "core", "index.ts.hbs"), '{{header}}\nexport * from "./models.js";\nexport const BUILT_BY = "my template";\n');
    const custom = await generate({ spec: "0.3.0", templates: dir });
    const bundled = await generate({ spec: "0.3.0" });
    expect(custom.files["index.ts"]).toMatch(/export const BUILT_BY = "my template";/);
    for (const path of Object.keys(bundled.files).filter((p) => p !== "index.ts" && p !== "a2a-codegen.manifest.json")) {
      expect(custom.files[path], path).toBe(bundled.files[path]);
    }
  });

  it("overrides the files of optional features too: store connect, gRPC binding, server and client, compat mapping", async () => {
    const dir = tempDir();
    const overrides: Record<string, string> = {
      "stores/connect.ts.hbs": "runtime/stores/connect.ts",
      "grpc/binding.ts.hbs": "grpc.ts",
      "grpc/server.ts.hbs": "server/grpc.ts",
      "grpc/client.ts.hbs": "grpc-client.ts",
      "compat/mapping.ts.hbs": "compat/a2a-0.3.0/mapping.ts",
    };
    for (const template of Object.keys(overrides)) {
      mkdirSync(join(dir, template.split("/")[0]!), { recursive: true });
      writeFileSync(join(dir, template), `{{header}}\nexport const FROM_TEMPLATE = ${JSON.stringify(template)};\n`);
    }
    const options = { spec: "1.0.1", stores: ["redis" as const], transports: ["grpc" as const], compat: "0.3.0", frameworks: ["node" as const] };
    const custom = await generate({ ...options, templates: dir });
    for (const [template, output] of Object.entries(overrides)) {
      expect(custom.files[output], output).toContain(`export const FROM_TEMPLATE = "${template}";`);
    }
    // The compat folder's gRPC binding is rendered from the same template.
    expect(custom.files["compat/a2a-0.3.0/grpc.ts"]).toContain('export const FROM_TEMPLATE = "grpc/binding.ts.hbs";');
  });

  it("takes the templates folder from the config, relative to it", () => {
    const project = tempDir();
    mkdirSync(join(project, "tpl", "core"), { recursive: true });
    writeFileSync(join(project, "tpl", "core", "index.ts.hbs"), "{{header}}\nexport const FROM_CONFIG = true;\n");
    writeFileSync(join(project, "a2a-codegen.config.json"), JSON.stringify({ spec: "0.2.5", out: "out", templates: "tpl" }));
    const r = run(["generate"], project);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(project, "out", "index.ts"), "utf8")).toMatch(/FROM_CONFIG/);
  });

  describe("a bad override fails with the template's path and line, and leaves the output as it was", () => {
    const cases: Array<[string, string, RegExp]> = [
      ["a syntax error", "{{header}}\nexport {};\n{{#each methods}}\n{{name}\n{{/each}}\n", /protocol\.ts\.hbs: template syntax error at line 4: /],
      ["an unknown helper", "{{header}}\nexport {};\n{{#each methods}}\n{{shout name}}\n{{/each}}\n", /protocol\.ts\.hbs: template error at line 4, column 1: unknown helper "shout"; helpers: json, jsonBlock, doc, eq/],
      ["a missing variable", "{{header}}\nexport {};\n\n{{specVersoin}}\n", /protocol\.ts\.hbs: template error at line 4, column 3: unknown variable "specVersoin"; the view has: .*specVersion/],
    ];
    it.each(cases)("%s", (_name, source, message) => {
      const project = tempDir();
      const out = join(project, "out");
      expect(run(["generate", "--spec", "0.3.0", "--out", out], project).status).toBe(0);
      const contents = () => Object.fromEntries(listFiles(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
      const before = contents();
      mkdirSync(join(project, "tpl", "core"), { recursive: true });
      writeFileSync(join(project, "tpl", "core", "protocol.ts.hbs"), source);
      const r = run(["generate", "--spec", "0.3.0", "--out", out, "--templates", "tpl"], project);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(contents()).toEqual(before);
    });
  });
});

describe("programmatic API", () => {
  it("the example build script of docs/api.md generates, checks and diffs", () => {
    const out = join(tempDir(), "a2a");
    const r = spawnSync(process.execPath, [join(ROOT, "examples", "build.mjs"), out], { cwd: ROOT, encoding: "utf8" });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    // The count it reports is the files it wrote (not a number kept by hand: runtime files come and go).
    expect(r.stdout).toMatch(new RegExp(`generated ${listFiles(out).length} files for A2A 0\\.3\\.0`));
    expect(r.stdout).toMatch(/check: up to date/);
    expect(r.stdout).toMatch(/9 methods → 10 methods: 1 added/);
    expect(listFiles(out)).toContain("server/node.ts");
    expect(listFiles(out)).not.toContain("server/express.ts");
  });
});
