import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate, writeResult } from "../../src/generate.js";
import { GENERATED, projectTempDir, ROOT, tempDir } from "../support/project.js";

/**
 * Generated code under the strictest settings projects use (issue 14, item 5): the options of
 * `@tsconfig/strictest` (written out here: no package needed), `exactOptionalPropertyTypes`, and
 * `erasableSyntaxOnly` (Node's built-in type stripping runs only erasable TypeScript). Every file must
 * compile: the committed default output of 1.0.1 and 0.3.0, and an output with every optional feature
 * (every store engine, gRPC, the 0.3.0 compat layer, card signatures, the LLM bridges, telemetry, the test kit), whose runtime files the default
 * output does not have.
 */
const STRICTEST = {
  strict: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
  exactOptionalPropertyTypes: true,
  noFallthroughCasesInSwitch: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noPropertyAccessFromIndexSignature: true,
  noUncheckedIndexedAccess: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  isolatedModules: true,
  checkJs: true,
  esModuleInterop: true,
  skipLibCheck: true,
  erasableSyntaxOnly: true,
};

/** Type-checks `include` (folders of generated output) under STRICTEST; the errors, one per line. */
function strictestErrors(include: readonly string[]): string[] {
  const dir = tempDir();
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", noEmit: true, types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")], ...STRICTEST },
      include: include.map((folder) => join(folder, "**", "*.ts")),
    }),
  );
  const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json"), "--pretty", "false"], { encoding: "utf8" });
  expect(run.error).toBeUndefined();
  return `${run.stdout}\n${run.stderr}`.split("\n").filter((line) => / error TS\d+:/.test(line));
}

describe("generated code under @tsconfig/strictest, exactOptionalPropertyTypes and erasableSyntaxOnly", () => {
  it("the committed output of 1.0.1 and 0.3.0 (every adapter) compiles", () => {
    expect(strictestErrors(["1.0.1", "0.3.0"].map((v) => join(GENERATED, `a2a-${v}`))).slice(0, 20)).toEqual([]);
  }, 120_000);

  it("an output with every optional feature compiles: stores, gRPC, compat, card signatures, bridges, telemetry, the test kit", async () => {
    const base = projectTempDir("strictest-");
    const full = writeResult(
      await generate({ spec: "1.0.1", out: join(base, "v1"), stores: ["postgres", "mysql", "redis", "sqlite", "durable-object"], transports: ["jsonrpc", "rest", "grpc"], compat: "0.3.0", cardSignatures: true, frameworks: ["node", "express", "fastify", "hono", "web"], bridges: ["ai-sdk", "langgraph"], telemetry: true, testing: true }),
    ).outDir;
    const full03 = writeResult(
      await generate({ spec: "0.3.0", out: join(base, "v03"), stores: ["postgres", "redis"], transports: ["jsonrpc", "rest", "grpc"], cardSignatures: true, frameworks: ["node"] }),
    ).outDir;
    // The features' files are really there (a test of nothing would pass too).
    for (const file of ["runtime/stores/postgres.ts", "runtime/stores/mysql.ts", "runtime/stores/redis.ts", "runtime/stores/sqlite.ts", "runtime/stores/durable-object.ts", "runtime/telemetry/server.ts", "runtime/testing/mock-agent.ts", "testing/msw.ts", "runtime/grpc/server.ts", "runtime/compat/service.ts", "runtime/card/signature.ts", "runtime/bridges/ai-sdk.ts", "runtime/bridges/langgraph.ts", "server/web.ts", "runtime/adapters/workers.ts"]) {
      expect(existsSync(join(full, file)), file).toBe(true);
    }
    expect(strictestErrors([full, full03]).slice(0, 20)).toEqual([]);
  }, 180_000);
});
