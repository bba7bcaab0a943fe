import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generate, writeResult } from "../../src/generate.js";
import type { VersionMapping } from "../../src/runtime/compat/converter.js";
import { independentValidator, projectTempDir, ROOT, tempDir } from "../support/project.js";
import { derived } from "../support/compat/mapping.js";

/**
 * `generate --spec 1.0.1 --compat 0.3.0` (issue 10): beside the 1.0.1 output, 0.3.0's models, validators,
 * protocol table and client in compat/a2a-0.3.0/, the derived mapping as data and the runtime interpreter;
 * the default output unchanged; strict TypeScript; the same through the CLI and the config file.
 */

const CLI = join(ROOT, "dist", "bin.cjs");
const tsc = join(ROOT, "node_modules", ".bin", "tsc");

function cli(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("generate --compat", () => {
  let plain: Record<string, string>;
  let withCompat: Record<string, string>;
  let outDir: string;
  beforeAll(async () => {
    plain = (await generate({ spec: "1.0.1" })).files;
    const result = await generate({ spec: "1.0.1", compat: "0.3.0", out: join(projectTempDir("compat-"), "a2a") });
    withCompat = result.files;
    outDir = writeResult(result).outDir;
  });

  it("adds files and changes none of the primary output's but server/core.ts, which serves both versions (the manifest aside)", () => {
    const added = Object.keys(withCompat).filter((f) => !(f in plain));
    expect(added.sort()).toEqual(
      [
        "compat/a2a-0.3.0/client.ts",
        "compat/a2a-0.3.0/client-validation.ts",
        "compat/a2a-0.3.0/proto-defaults.ts",
        "compat/a2a-0.3.0/errors.ts",
        "compat/a2a-0.3.0/index.ts",
        "compat/a2a-0.3.0/mapping.ts",
        "compat/a2a-0.3.0/models.ts",
        "compat/a2a-0.3.0/protocol.ts",
        "compat/a2a-0.3.0/validators.ajv.ts",
        "compat/a2a-0.3.0/validators.ts",
        "runtime/compat/card.ts",
        "runtime/compat/route.ts",
        "runtime/compat/service.ts",
        "runtime/compat/converter.ts",
        // 0.3.0's wire-shape translation: its protocol.ts (HTTP+JSON from a2a-0.3.0.proto) imports it.
        "runtime/wire/shapes-0.3.0.ts",
      ].sort(),
    );
    for (const [file, text] of Object.entries(plain)) if (file !== "a2a-codegen.manifest.json" && file !== "server/core.ts") expect(withCompat[file], file).toBe(text);
    // core.ts builds the compat layer from the compat folder; without --compat it imports nothing of it.
    expect(withCompat["server/core.ts"]).toContain('from "../compat/a2a-0.3.0/mapping.js"');
    expect(withCompat["server/core.ts"]).toContain("serveCompat(");
    // (It names the option only: `compat` is typed `false` there and any other value is refused.)
    expect(plain["server/core.ts"]).not.toMatch(/from "[^"]*compat[^"]*"/);
    expect(plain["server/core.ts"]).not.toContain("serveCompat");
    expect(plain["server/core.ts"]).toContain("compat?: false;");
    // Without --compat the interpreter is not copied: the default output is what it was.
    expect(Object.keys(plain).some((f) => f.includes("compat"))).toBe(false);
  });

  it("the compat models are 0.3.0's, importing the primary output's shared runtime", () => {
    const models = withCompat["compat/a2a-0.3.0/models.ts"] ?? "";
    expect(models).toMatch(/from a2a-0\.3\.0\.json .*for a2a-1\.0\.1\.proto/);
    expect(models).toContain('kind: "task"');
    const imports = Object.entries(withCompat)
      .filter(([f]) => f.startsWith("compat/"))
      .flatMap(([, text]) => [...text.matchAll(/from "(\.[^"]*)"/g)].map((m) => m[1]));
    expect(imports.filter((i) => i?.includes("runtime/"))).not.toHaveLength(0);
    for (const i of imports) expect(i).toMatch(/^(\.\/[a-z.-]+\.js|\.\.\/\.\.\/runtime\/(?:[a-z]+\/)?[a-z0-9.-]+\.js)$/);
  });

  it("mapping.ts holds exactly the mapping derived from the IR diff and the table", async () => {
    const mod = (await import(join(outDir, "compat/a2a-0.3.0/mapping.ts"))) as { COMPAT_MAPPING: VersionMapping; LOSSY_FIELDS: unknown };
    expect(mod.COMPAT_MAPPING).toEqual(derived().mapping);
    expect(mod.LOSSY_FIELDS).toEqual(derived().mapping.lossy);
  });

  it("the generated interpreter, mapping and validators work together: a 0.3 send becomes a valid 1.0 SendMessageRequest", async () => {
    const { VersionConverter } = (await import(join(outDir, "runtime/compat/converter.ts"))) as typeof import("../../src/runtime/compat/converter.js");
    const { COMPAT_MAPPING } = (await import(join(outDir, "compat/a2a-0.3.0/mapping.ts"))) as { COMPAT_MAPPING: VersionMapping };
    const v1 = (await import(join(outDir, "validators.ts"))) as { validators: Record<string, (x: unknown) => boolean> };
    const v03 = (await import(join(outDir, "compat/a2a-0.3.0/validators.ts"))) as { validators: Record<string, (x: unknown) => boolean> };
    const params = {
      message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] },
      configuration: { acceptedOutputModes: ["text/plain"], blocking: false },
    };
    expect(v03.validators.MessageSendParams?.(params)).toBe(true);
    const converted = new VersionConverter(COMPAT_MAPPING).params("message/send", "toPrimary", params);
    expect(converted).toEqual({
      message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] },
      configuration: { acceptedOutputModes: ["text/plain"], returnImmediately: true },
    });
    expect(v1.validators.SendMessageRequest?.(converted)).toBe(true);
  });

  it("compiles under strict TypeScript", () => {
    const config = join(outDir, "..", "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noImplicitOverride: true,
          skipLibCheck: false,
          types: [],
        },
        include: ["a2a/**/*.ts"],
      }),
    );
    const run = spawnSync(tsc, ["-p", config], { encoding: "utf8" });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  // The compat files under @tsconfig/strictest's options: test/product/strictest.test.ts (an output with every
  // optional feature, the compat layer included, where every file must compile).

  it("the CLI flag and the config key; an unsupported pair is a usage error naming the supported ones", () => {
    const work = tempDir();
    const viaFlag = cli(["generate", "--spec", "1.0.1", "--compat", "0.3.0", "--out", "a"], work);
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(existsSync(join(work, "a", "compat", "a2a-0.3.0", "mapping.ts"))).toBe(true);
    writeFileSync(join(work, "a2a-codegen.config.json"), JSON.stringify({ spec: "1.0.1", compat: "0.3.0", out: "b" }));
    const viaConfig = cli(["generate"], work);
    expect(viaConfig.code, viaConfig.stderr).toBe(0);
    expect(readFileSync(join(work, "b", "compat", "a2a-0.3.0", "mapping.ts"), "utf8")).toBe(readFileSync(join(work, "a", "compat", "a2a-0.3.0", "mapping.ts"), "utf8"));
    const bad = cli(["generate", "--spec", "0.3.0", "--compat", "0.2.5", "--out", "c"], work);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("no compat mapping from 0.3.0 to 0.2.5; supported: --spec 1.0.1 --compat 0.3.0");
    expect(existsSync(join(work, "c"))).toBe(false);
    writeFileSync(join(work, "a2a-codegen.config.json"), JSON.stringify({ spec: "1.0.1", compat: 3 }));
    const badKey = cli(["generate"], work);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toContain('"compat" must be a non-empty string');
  });

  it("with --card, the card in 0.3.0's shape too (compat/a2a-0.3.0/card.ts), valid in 0.3.0's schema, the default compat card of core.ts", async () => {
    const work = projectTempDir("compat-card-");
    const card = {
      name: "Secured",
      description: "d",
      version: "1.0.0",
      supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "S", description: "d", tags: ["t"] }],
      securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
      securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    };
    writeFileSync(join(work, "agent-card.json"), JSON.stringify(card));
    const result = await generate({ spec: "1.0.1", compat: "0.3.0", card: "agent-card.json", cwd: work, out: "a2a", frameworks: ["node"] });
    const dir = writeResult(result).outDir;
    const { agentCard } = (await import(join(dir, "compat/a2a-0.3.0/card.ts"))) as { agentCard: Record<string, unknown> };
    expect(agentCard).toMatchObject({ name: "Secured", url: "http://127.0.0.1:3000/", protocolVersion: "0.3.0", securitySchemes: { bearer: { type: "http", scheme: "Bearer" } }, security: [{ bearer: [] }] });
    expect(independentValidator("0.3.0", "AgentCard")(agentCard)).toBe(true);
    expect(result.files["server/core.ts"]).toContain("card: asked?.card ?? compatAgentCard");
    // Without --card there is no such file, and core.ts takes the compat card from the options only.
    expect(withCompat["compat/a2a-0.3.0/card.ts"]).toBeUndefined();
    expect(withCompat["server/core.ts"]).not.toContain("compatAgentCard");
  });
});
