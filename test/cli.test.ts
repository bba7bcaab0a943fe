import { beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { listFiles } from "../src/write/writer.js";
import { readSchema, ROOT, tempDir } from "./helpers.js";

const CLI = join(ROOT, "dist", "cli.js");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
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
    writeFileSync(join(out, "NOTES.md"), "a file of the user's, in the output folder\n");
    before = snapshot(out);
  });

  const leftovers = () => readdirSync(work).filter((n) => n.includes("a2a-codegen-"));

  describe("bad input: one clear message naming the file and place, a non-zero exit, the old output intact", () => {
    const cases: Array<{ name: string; setup: () => string[]; code: number; message: RegExp }> = [
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
        message: /dangling\.json at \/definitions\/Message\/properties\/parts\/items\/\$ref: dangling \$ref "#\/definitions\/Partt": there is no definition "Partt"/,
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
        expect(r.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
        expect(snapshot(out)).toEqual(before);
        expect(leftovers()).toEqual([]);
      });
    }

    it("prints the stack trace with --verbose", () => {
      const r = run(["generate", "--schema", "nope.json", "--out", out, "--verbose"], work);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^\s+at /m);
    });

    it("refuses to overwrite a file it does not own, and leaves the folder as it was", () => {
      const foreign = join(work, "foreign");
      mkdirSync(foreign, { recursive: true });
      writeFileSync(join(foreign, "models.ts"), "// mine\n");
      const r = run(["generate", "--out", foreign], work);
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(/would overwrite models\.ts, which a2a-codegen does not own/);
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
    it("replaces its own files, keeps the user's, and drops files it no longer generates", () => {
      const dir = join(work, "regen");
      expect(run(["generate", "--spec", "0.2.5", "--out", dir], work).code).toBe(0);
      writeFileSync(join(dir, "mine.ts"), "export const mine = 1;\n");
      const manifest = JSON.parse(readFileSync(join(dir, "a2a-codegen.manifest.json"), "utf8")) as { files: Array<{ path: string }> };
      // Pretend an older generator wrote one more file.
      manifest.files.push({ path: "old-output.ts" });
      writeFileSync(join(dir, "a2a-codegen.manifest.json"), JSON.stringify(manifest));
      writeFileSync(join(dir, "old-output.ts"), "// old\n");
      expect(run(["generate", "--spec", "0.3.0", "--out", dir], work).code).toBe(0);
      expect(readFileSync(join(dir, "mine.ts"), "utf8")).toBe("export const mine = 1;\n");
      expect(existsSync(join(dir, "old-output.ts"))).toBe(false);
      expect(readFileSync(join(dir, "protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.3\.0"/);
    });
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
    it("versions lists the bundled versions, the newest as default", () => {
      const r = run(["versions", "--json"], work);
      expect(JSON.parse(r.stdout)).toEqual({
        default: "1.0.1",
        versions: ["0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.3.0", "1.0.1"],
      });
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
