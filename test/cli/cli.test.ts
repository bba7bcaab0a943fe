import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { listFiles } from "../../src/write/list-files.js";
import { projectTempDir, readSchema, ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A minimal valid agent card of a version (1.0: supportedInterfaces; 0.3: url and protocolVersion). */
function validCard(version: "1.0.1" | "0.3.0"): Record<string, unknown> {
  const common = { name: "Echo", description: "echoes", version: "1.0.0", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] };
  return version === "1.0.1"
    ? { ...common, supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }
    : { protocolVersion: "0.3.0", url: "http://127.0.0.1:3000/", preferredTransport: "JSONRPC", ...common };
}

/** Every file of a folder with its hash: to prove a failed run left it as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of listFiles(dir)) out[f] = createHash("sha256").update(readFileSync(join(dir, f))).digest("hex");
  return out;
}

describe("CLI", () => {
  let work: string;
  let out: string;
  let before: Record<string, string>;
  beforeAll(() => {
    work = tempDir();
    out = join(work, "out");
    const first = run(["generate", "--spec", "0.3.0", "--out", out], work);
    expect(first.code).toBe(0);
    before = snapshot(out);
  });

  const leftovers = () => readdirSync(work).filter((n) => n.includes("a2a-codegen-"));

  describe("bad input: one clear message naming the file and place, a non-zero exit, the old output intact", () => {
    const cases: Array<{ name: string; setup: () => string[]; code: number; message: RegExp; lines?: number }> = [
      {
        name: "missing schema file",
        setup: () => ["--schema", "nope/a2a.json"],
        code: 2,
        message: /^a2a-codegen: error: nope\/a2a\.json: file not found$/m,
      },
      {
        name: "invalid JSON (line and column)",
        setup: () => {
          writeFileSync(join(work, "broken.json"), '{\n  "definitions": {\n    "AgentCard": { "type": "object", }\n  }\n}\n');
          return ["--schema", "broken.json"];
        },
        code: 2,
        message: /^a2a-codegen: error: broken\.json: invalid JSON at line 3, column 38: Expected double-quoted property name$/m,
      },
      {
        name: "valid JSON that is not a JSON Schema",
        setup: () => {
          writeFileSync(join(work, "package-like.json"), JSON.stringify({ name: "x", version: "1.0.0" }));
          return ["--schema", "package-like.json"];
        },
        code: 2,
        message: /package-like\.json at \/: not an A2A JSON Schema: it has no "definitions"/,
      },
      {
        name: "a JSON Schema that is not A2A",
        setup: () => {
          writeFileSync(join(work, "other.json"), JSON.stringify({ definitions: { Pet: { type: "object" }, Owner: { type: "object" } } }));
          return ["--schema", "other.json"];
        },
        code: 2,
        message: /other\.json at \/definitions: not an A2A JSON Schema: none of its 2 definitions is "AgentCard"/,
      },
      {
        name: "a dangling $ref",
        setup: () => {
          const schema = readSchema("0.3.0") as { definitions: Record<string, { properties: Record<string, { items: { $ref: string } }> }> };
          (schema.definitions.Message as { properties: Record<string, { items: { $ref: string } }> }).properties.parts!.items.$ref = "#/definitions/Partt";
          writeFileSync(join(work, "dangling.json"), JSON.stringify(schema, null, 2));
          return ["--schema", "dangling.json"];
        },
        code: 2,
        message: /dangling\.json at \/definitions\/Message\/properties\/parts\/items\/\$ref: dangling \$ref "#\/definitions\/Partt": there is no definition "Partt"; did you mean "Part"\?$/m,
      },
      {
        name: "a name collision (0.1.0 dialect: $defs)",
        setup: () => {
          const schema = readSchema("0.1.0") as { $defs: Record<string, unknown> };
          schema.$defs.message = { type: "object" };
          writeFileSync(join(work, "collision.json"), JSON.stringify(schema));
          return ["--schema", "collision.json"];
        },
        code: 2,
        message: /collision\.json at \/\$defs\/message: definition "message" collides with definition "Message" \(\/\$defs\/Message\): both would be the type "Message"/,
      },
      {
        name: "an unknown --spec",
        setup: () => ["--spec", "9.9.9"],
        code: 2,
        message: /unknown spec version "9\.9\.9"; bundled versions: 0\.1\.0, .*0\.3\.0/,
      },
      {
        name: "a schema that is not valid JSON Schema (a type that does not exist)",
        setup: () => {
          const schema = readSchema("0.3.0") as { definitions: Record<string, { properties: Record<string, { type: string }> }> };
          schema.definitions.TextPart!.properties.text!.type = "strin";
          writeFileSync(join(work, "strin.json"), JSON.stringify(schema, null, 2));
          return ["--schema", "strin.json"];
        },
        code: 2,
        message: /^a2a-codegen: error: strin\.json at \/definitions\/TextPart\/properties\/text\/type: not a JSON Schema type: "strin"; types: array, boolean, integer, null, number, object, string$/m,
      },
      {
        name: "a template override that renders invalid TypeScript (the template, the output file, the place)",
        setup: () => {
          mkdirSync(join(work, "bad-templates", "core"), { recursive: true });
          writeFileSync(join(work, "bad-templates", "core", "index.ts.hbs"), '{{header}}\nexport * from "./models.js";\nexport const broken = ;\n');
          return ["--spec", "0.3.0", "--templates", "bad-templates"];
        },
        code: 2,
        lines: 8,
        message: /^a2a-codegen: error: bad-templates\/core\/index\.ts\.hbs: renders invalid TypeScript: out\/index\.ts at line 3, column 23: Unexpected token$/m,
      },
      {
        name: "--templates naming a folder that does not exist",
        setup: () => ["--spec", "0.3.0", "--templates", "no-such-templates"],
        code: 2,
        message: /^a2a-codegen: error: no-such-templates: the templates folder does not exist/m,
      },
      {
        name: "an unknown spec version in a config file (names the config file)",
        setup: () => {
          writeFileSync(join(work, "bad-spec.config.json"), JSON.stringify({ spec: "0.9.9" }));
          return ["--config", "bad-spec.config.json"];
        },
        code: 2,
        message: /^a2a-codegen: error: bad-spec\.config\.json at \/spec: unknown spec version "0\.9\.9"; bundled versions: 0\.1\.0, .*1\.0\.1$/m,
      },
      {
        name: "an unknown framework in a config file",
        setup: () => {
          writeFileSync(join(work, "bad-framework.config.json"), JSON.stringify({ spec: "0.3.0", frameworks: ["node", "koa"] }));
          return ["--config", "bad-framework.config.json"];
        },
        code: 2,
        message: /^a2a-codegen: error: bad-framework\.config\.json at \/frameworks\/1: unknown framework "koa"; frameworks: node, express, fastify, hono, web$/m,
      },
      {
        name: "an agent card with a misspelled field (the card file, the pointer, the closest field)",
        setup: () => {
          writeFileSync(join(work, "agent-card.json"), JSON.stringify({ ...validCard("1.0.1"), documentationURL: "https://example.com/docs" }, null, 2));
          return ["--spec", "1.0.1", "--card", "agent-card.json"];
        },
        code: 2,
        message: /^a2a-codegen: error: agent-card\.json at \/documentationURL: not a valid A2A 1\.0\.1 agent card: \/documentationURL: unknown field "documentationURL"; did you mean "documentationUrl"\?$/m,
      },
      {
        name: "an output path under a file (unwritable)",
        setup: () => {
          writeFileSync(join(work, "a-file"), "x");
          return ["--spec", "0.3.0", "--out-override", join(work, "a-file", "out")];
        },
        code: 3,
        message: /a-file\/out: cannot write the output folder: a parent of the path is a file, not a folder/,
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const args = c.setup();
        const override = args.indexOf("--out-override");
        const target = override >= 0 ? args.splice(override, 2)[1] : out;
        const r = run(["generate", ...args, "--out", target as string], work);
        expect(r.stderr).toMatch(c.message);
        expect(r.code).toBe(c.code);
        expect(r.stderr).not.toMatch(/^\s+at /m); // no stack trace
        expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(c.lines ?? 2);
        expect(r.stderr).not.toMatch(/internal error/);
        expect(snapshot(out)).toEqual(before);
        expect(leftovers()).toEqual([]);
      });
    }

    it("prints the stack trace with --verbose", () => {
      const r = run(["generate", "--schema", "nope.json", "--out", out, "--verbose"], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^\s+at /m);
    });

    it("refuses a folder holding a file it does not own, and leaves the folder as it was", () => {
      const foreign = join(work, "foreign");
      mkdirSync(foreign, { recursive: true });
      writeFileSync(join(foreign, "models.ts"), "// mine\n");
      const r = run(["generate", "--out", foreign], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/foreign: the output folder holds files a2a-codegen does not own \(not in its a2a-codegen\.manifest\.json\): models\.ts;/);
      expect(listFiles(foreign)).toEqual(["models.ts"]);
      expect(readFileSync(join(foreign, "models.ts"), "utf8")).toBe("// mine\n");
    });

    it.skipIf(process.getuid?.() === 0)("a read-only parent folder (as a non-root user)", () => {
      const parent = join(work, "ro");
      mkdirSync(parent);
      cpSync(out, join(parent, "out"), { recursive: true });
      chmodSync(parent, 0o555);
      try {
        const r = run(["generate", "--out", join(parent, "out")], work);
        expect(r.code).toBe(3);
        expect(r.stderr).toMatch(/permission denied/);
        expect(snapshot(join(parent, "out"))).toEqual(before);
      } finally {
        chmodSync(parent, 0o755);
      }
    });
  });

  describe("--check", () => {
    it("passes on fresh output and lists stale, missing and foreign-free state", () => {
      const dir = join(work, "check");
      expect(run(["generate", "--spec", "0.2.5", "--out", dir], work).code).toBe(0);
      const ok = run(["generate", "--spec", "0.2.5", "--out", dir, "--check"], work);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/up to date/);

      writeFileSync(join(dir, "models.ts"), readFileSync(join(dir, "models.ts"), "utf8") + "// edited\n");
      rmSync(join(dir, "protocol.ts"));
      const edited = snapshot(dir);
      const stale = run(["generate", "--spec", "0.2.5", "--out", dir, "--check"], work);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toMatch(/stale/);
      // The exact command that regenerates, with its --spec (issue 14).
      expect(stale.stderr).toContain(`stale — regenerate with \`a2a-codegen generate --spec 0.2.5 --out ${dir}\``);
      expect(stale.stderr).toMatch(/changed: models\.ts/);
      expect(stale.stderr).toMatch(/missing: protocol\.ts/);
      expect(snapshot(dir)).toEqual(edited); // --check writes nothing
    });

    it("fails when the spec version changed under committed output", () => {
      const dir = join(work, "check2");
      expect(run(["generate", "--spec", "0.2.5", "--out", dir], work).code).toBe(0);
      const r = run(["generate", "--spec", "0.2.6", "--out", dir, "--check"], work);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/changed: models\.ts/);
    });
  });

  describe("regeneration", () => {
    it("replaces its own files and drops files it no longer generates", () => {
      const dir = join(work, "regen");
      expect(run(["generate", "--spec", "0.2.5", "--out", dir], work).code).toBe(0);
      const manifest = JSON.parse(readFileSync(join(dir, "a2a-codegen.manifest.json"), "utf8")) as { files: Array<{ path: string }> };
      // Pretend an older generator wrote one more file.
      manifest.files.push({ path: "old-output.ts" });
      writeFileSync(join(dir, "a2a-codegen.manifest.json"), JSON.stringify(manifest));
      writeFileSync(join(dir, "old-output.ts"), "// old\n");
      expect(run(["generate", "--spec", "0.3.0", "--out", dir], work).code).toBe(0);
      expect(existsSync(join(dir, "old-output.ts"))).toBe(false);
      expect(readFileSync(join(dir, "protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.3\.0"/);
    });
  });

  describe("user errors are never exit 70 (documented codes: 2 bad input, 3 cannot write)", () => {
    it("init under a file, and diff --all --out into a missing folder or under a file, exit 3 naming the path", () => {
      writeFileSync(join(work, "plain-file"), "x");
      const init = run(["init", "plain-file/agent"], work);
      expect(init.stderr).toMatch(/^a2a-codegen: error: plain-file\/agent: cannot write the project: a parent of the path is a file, not a folder$/m);
      expect(init.code).toBe(3);
      const missing = run(["diff", "--all", "--out", "no-such-folder/changes.md"], work);
      expect(missing.stderr).toMatch(/^a2a-codegen: error: no-such-folder\/changes\.md: cannot write the report: its folder does not exist$/m);
      expect(missing.code).toBe(3);
      const underFile = run(["diff", "0.2.6", "0.3.0", "--out", "plain-file/changes.md"], work);
      expect(underFile.stderr).toMatch(/plain-file\/changes\.md: cannot write the report: a parent of the path is a file, not a folder/);
      expect(underFile.code).toBe(3);
    });

    it("init into a file is bad input (2)", () => {
      const r = run(["init", "plain-file"], work);
      expect(r.stderr).toMatch(/^a2a-codegen: error: plain-file: is a file, not a folder$/m);
      expect(r.code).toBe(2);
    });

    it.skipIf(process.getuid?.() === 0)("init into a read-only folder, diff --all --out into a read-only folder (as a non-root user): 3", () => {
      const ro = join(work, "read-only");
      mkdirSync(ro);
      chmodSync(ro, 0o555);
      try {
        const init = run(["init", "read-only/agent"], work);
        expect(init.stderr).toMatch(/read-only\/agent: cannot write the project: permission denied/);
        expect(init.code).toBe(3);
        const diff = run(["diff", "--all", "--out", "read-only/changes.md"], work);
        expect(diff.stderr).toMatch(/read-only\/changes\.md: cannot write the report: permission denied/);
        expect(diff.code).toBe(3);
      } finally {
        chmodSync(ro, 0o755);
      }
    });
  });

  describe("default server adapters follow the project", () => {
    it("no package.json: node:http only; a package.json with fastify: node and fastify; the config's frameworks win", () => {
      const bare = tempDir();
      const none = run(["generate", "--spec", "0.3.0", "--out", "a2a"], bare);
      expect(none.code, none.stderr).toBe(0);
      expect(none.stdout).toMatch(/servers: node \(no package\.json: node:http only\)/);
      expect(listFiles(join(bare, "a2a")).filter((f) => f.startsWith("server/"))).toEqual(["server/core.ts", "server/node.ts"]);

      const fastifyOnly = tempDir();
      writeFileSync(join(fastifyOnly, "package.json"), JSON.stringify({ name: "agent", dependencies: { fastify: "^5.4.0" } }));
      const detected = run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], fastifyOnly);
      expect(detected.code, detected.stderr).toBe(0);
      expect(detected.stdout).toMatch(/servers: node, fastify \(the frameworks of .*package\.json\)/);
      expect(listFiles(join(fastifyOnly, "src/a2a")).filter((f) => f.startsWith("server/"))).toEqual(["server/core.ts", "server/fastify.ts", "server/node.ts"]);

      writeFileSync(join(fastifyOnly, "a2a-codegen.config.json"), JSON.stringify({ spec: "0.3.0", out: "src/a2a", frameworks: ["hono"] }));
      expect(run(["generate"], fastifyOnly).code).toBe(0);
      expect(listFiles(join(fastifyOnly, "src/a2a")).filter((f) => f.startsWith("server/"))).toEqual(["server/core.ts", "server/hono-node.ts", "server/hono.ts"]);
    });
  });

  describe("a spec change that leaves type errors in the user's code", () => {
    it("exits 4 after writing the new output, names the error, and exits 0 with --allow-type-errors", () => {
      const dir = projectTempDir();
      symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: true, noEmit: true, types: ["node"] }, include: ["src"] }));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "user-project", type: "module" }));
      mkdirSync(join(dir, "src"));
      // The user's code leans on a fact of 0.2.5: where the card is served.
      writeFileSync(join(dir, "src", "mine.ts"), 'import { WELL_KNOWN_AGENT_CARD_PATH } from "./a2a/protocol.js";\nexport const path: "/.well-known/agent.json" = WELL_KNOWN_AGENT_CARD_PATH;\n');
      expect(run(["generate", "--spec", "0.2.5", "--out", "src/a2a"], dir).code).toBe(0);
      const changed = run(["generate", "--spec", "0.3.0", "--out", "src/a2a"], dir);
      expect(changed.stdout).toMatch(/The spec changed\. A2A 0\.2\.5 → 0\.3\.0/);
      expect(changed.stderr).toMatch(/Your code has 1 type error against the new output:\n {2}src\/mine\.ts:2:\d+ TS2322/);
      expect(changed.stderr).toMatch(/src\/a2a is written; fix your code \(or pass --allow-type-errors/);
      expect(changed.code).toBe(4);
      expect(readFileSync(join(dir, "src/a2a/protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.3\.0"/);

      expect(run(["generate", "--spec", "0.2.5", "--out", "src/a2a"], dir).code).toBe(0);
      const allowed = run(["generate", "--spec", "0.3.0", "--out", "src/a2a", "--allow-type-errors"], dir);
      expect(allowed.stdout).toMatch(/Your code has 1 type error/);
      expect(allowed.code).toBe(0);
    }, 120_000);
  });

  describe("config file", () => {
    it("reads a2a-codegen.config.json from the working folder; flags win over it", () => {
      const dir = tempDir();
      writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ spec: "0.2.5", out: "src/a2a" }));
      const r = run(["generate"], dir);
      expect(r.code).toBe(0);
      expect(readFileSync(join(dir, "src/a2a/protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.2\.5"/);
      expect(run(["generate", "--spec", "0.1.0"], dir).code).toBe(0);
      expect(readFileSync(join(dir, "src/a2a/protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.1\.0"/);
    });

    it("takes several targets and an .mjs config", () => {
      const dir = tempDir();
      writeFileSync(
        join(dir, "a2a-codegen.config.mjs"),
        'export default { targets: [{ spec: "0.1.0", out: "a2a/v01" }, { spec: "0.3.0", out: "a2a/v03" }] };\n',
      );
      const r = run(["generate"], dir);
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, "a2a/v01/models.ts"))).toBe(true);
      expect(existsSync(join(dir, "a2a/v03/models.ts"))).toBe(true);
      expect(run(["generate", "--check"], dir).code).toBe(0);
    });

    it("with several targets, --spec (or --out, ...) on the command line is refused, never applied to every target", () => {
      const dir = tempDir();
      writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ targets: [{ spec: "0.2.5", out: "a" }, { spec: "0.3.0", out: "b" }] }));
      const r = run(["generate", "--spec", "0.1.0"], dir);
      expect(r.stderr).toMatch(/--spec cannot apply to the 2 targets of a2a-codegen\.config\.json: change the target in the config/);
      expect(r.code).toBe(2);
      expect(existsSync(join(dir, "a"))).toBe(false);
      // --framework applies to every target, as documented.
      expect(run(["generate", "--framework", "node"], dir).code).toBe(0);
      expect(listFiles(join(dir, "b")).filter((f) => f.startsWith("server/"))).toEqual(["server/core.ts", "server/node.ts"]);
    });

    it("rejects an unknown key with its pointer", () => {
      const dir = tempDir();
      writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ spec: "0.3.0", outt: "x" }));
      const r = run(["generate"], dir);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/a2a-codegen\.config\.json at \/outt: unknown key "outt"/);
    });
  });

  describe("diff", () => {
    it("reports method renames and the discriminator change from 0.1.0 to 0.2.0", () => {
      const r = run(["diff", "0.1.0", "0.2.0"], work);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/~ tasks\/send → message\/send \(likely rename; same role: send\)/);
      expect(r.stdout).toMatch(/~ Part: discriminator tag "type" → tag "kind"/);
    });
    it("--json gives the diff as data", () => {
      const r = run(["diff", "0.2.4", "0.2.5", "--json"], work);
      const diff = JSON.parse(r.stdout) as { methods: { added: Array<{ method: string }> } };
      expect(diff.methods.added.map((m) => m.method)).toEqual(["tasks/pushNotificationConfig/delete", "tasks/pushNotificationConfig/list"]);
    });
    it("--all --out --check fails on a stale report and passes on a fresh one", () => {
      const file = join(work, "changes.md");
      writeFileSync(file, "stale\n");
      expect(run(["diff", "--all", "--out", file, "--check"], work).code).toBe(1);
      expect(run(["diff", "--all", "--out", file], work).code).toBe(0);
      expect(run(["diff", "--all", "--out", file, "--check"], work).code).toBe(0);
      expect(readFileSync(file, "utf8")).toBe(readFileSync(join(ROOT, "docs", "spec-changes.md"), "utf8"));
    });
    it("an unknown version is named, with the bundled ones", () => {
      const r = run(["diff", "0.3.0", "9.9.9"], work);
      expect(r.stderr).toMatch(/^a2a-codegen: error: unknown spec version "9\.9\.9"; bundled versions: 0\.1\.0, 0\.2\.0, .*0\.3\.0, 1\.0\.1$/m);
      expect(r.code).toBe(2);
    });
    it("diff A B --out FILE writes the file (Markdown for .md), and says so", () => {
      const r = run(["diff", "0.2.6", "0.3.0", "--out", "pair.md"], work);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/pair\.md: written/);
      expect(readFileSync(join(work, "pair.md"), "utf8")).toMatch(/^## A2A 0\.2\.6 → 0\.3\.0|^#+ .*0\.2\.6.*0\.3\.0/m);
      const json = run(["diff", "0.2.6", "0.3.0", "--json", "--out", "pair.json"], work);
      expect(json.code).toBe(0);
      expect((JSON.parse(readFileSync(join(work, "pair.json"), "utf8")) as { to: { specVersion: string } }).to.specVersion).toBe("0.3.0");
    });
    it("--check without --all --out, and --json with --markdown, are usage errors", () => {
      const check = run(["diff", "--all", "--check"], work);
      expect(check.stderr).toMatch(/diff --check needs --all and --out FILE/);
      expect(check.code).toBe(2);
      const both = run(["diff", "0.2.6", "0.3.0", "--json", "--markdown"], work);
      expect(both.stderr).toMatch(/--json and --markdown are mutually exclusive/);
      expect(both.code).toBe(2);
    });
    it("needs two versions", () => {
      const r = run(["diff", "0.3.0"], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/diff needs two versions or schema files/);
    });
  });

  describe("proto (A2A 1.0 on)", () => {
    it("schema --from-proto writes the JSON Schema the proto derives", () => {
      const out = join(work, "a2a-1.0.1.json");
      const r = run(["schema", "--from-proto", join(ROOT, "schema", "a2a-1.0.1.proto"), "--out", out], work);
      expect(r.code, r.stderr).toBe(0);
      const schema = JSON.parse(readFileSync(out, "utf8")) as { definitions: Record<string, unknown> };
      expect(Object.keys(schema.definitions)).toContain("SendMessageRpcRequest");
      expect(Object.keys(schema.definitions)).toContain("StreamResponse");
    });
    it("schema --overlay-out reports both files written", () => {
      const r = run(["schema", "--from-proto", join(ROOT, "schema", "a2a-1.0.1.proto"), "--out", "p.json", "--overlay-out", "p.overlay.json"], work);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^p\.json: written$/m);
      expect(r.stdout).toMatch(/^p\.overlay\.json: written \(the version facts\)$/m);
      expect(existsSync(join(work, "p.overlay.json"))).toBe(true);
    });
    it("generate --schema takes a .proto directly", () => {
      const proto = join(work, "a2a-1.0.1.proto");
      writeFileSync(proto, readFileSync(join(ROOT, "schema", "a2a-1.0.1.proto")));
      const r = run(["generate", "--schema", proto, "--out", join(work, "v1")], work);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/A2A 1\.0\.1 — 97 types, 11 methods/);
      expect(readFileSync(join(work, "v1", "protocol.ts"), "utf8")).toMatch(/ SendStreamingMessage: \{/);
    });
    it("diff 0.3.0 1.0.1 gives a migration report", () => {
      const r = run(["diff", "0.3.0", "1.0.1"], work);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/~ message\/send → SendMessage \(likely rename; same role: send\)/);
      expect(r.stdout).toMatch(/\+ ListTasks/);
    });
  });

  describe("commands", () => {
    it("--help shows the commands and examples", () => {
      const r = run(["--help"], work);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/a2a-codegen generate --check/);
      expect(r.stdout).toMatch(/versions/);
    });
    it("versions lists the bundled versions, the newest as default, with their bindings (JSON-RPC only before 0.3.0)", () => {
      const r = run(["versions", "--json"], work);
      const versions = ["0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.3.0", "1.0.1"];
      const all = ["JSONRPC", "HTTP+JSON", "GRPC"];
      expect(JSON.parse(r.stdout)).toEqual({
        default: "1.0.1",
        versions,
        bindings: Object.fromEntries(versions.map((v) => [v, v === "0.3.0" || v === "1.0.1" ? all : ["JSONRPC"]])),
      });
      const text = run(["versions"], work).stdout.split("\n");
      expect(text).toContain("0.2.6            JSONRPC");
      expect(text).toContain("0.3.0            JSONRPC, HTTP+JSON, GRPC");
      expect(text).toContain("1.0.1 (default)  JSONRPC, HTTP+JSON, GRPC");
    });
    it("--verbose prints per-phase timings", () => {
      const r = run(["generate", "--out", join(work, "verbose"), "--verbose"], work);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/timings 1\.0\.1: load \d+ ms, normalize \d+ ms, ir \d+ ms, models \d+ ms, validators \d+ ms, protocol \d+ ms, format \d+ ms, write \d+ ms; total \d+ ms/);
    });
    it("an unknown option is a usage error", () => {
      const r = run(["generate", "--spek", "0.3.0"], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Unknown argument: spek/);
    });
  });
});
