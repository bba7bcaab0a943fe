// The client-only output (issue 35 item 3: `generate --client-only`): models, the client and only the
// runtime files the client imports. Its file set (no server, task runtime, push, stores, adapters), an import
// scan (every file reachable from client.ts or client-validation.ts, none importing `node:`, no package at
// all), and a type-check with `lib: ["ES2022", "DOM"]` and no Node types (`types: []`, outside any
// node_modules), under the strictest options the full output is held to.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { bundleEntryFiles, RUNTIME_BUNDLES } from "../../src/emit/runtime-bundles.js";
import { ROOT } from "../support/project.js";
import { clientOnlyOutput, reachable } from "./output.js";

const VERSIONS = ["0.2.5", "0.3.0", "1.0.1"] as const;
/** The runtime files of the server core: none may be in a client-only output. */
const SERVER_CORE = new Set(
  RUNTIME_BUNDLES.filter((b) => b.feature.startsWith("server core"))
    .flatMap((b) => b.brings.flatMap(bundleEntryFiles))
    .map((path) => `runtime/${path}`),
);

describe.each(VERSIONS)("the client-only output of %s", (version) => {
  it("holds the models, the client and its opt-in checks, and no server file", async () => {
    const { files } = await clientOnlyOutput(version);
    const paths = Object.keys(files);
    for (const path of ["models.ts", "protocol.ts", "client.ts", "client-validation.ts", "proto-defaults.ts", "validators.ts", "validators.ajv.ts", "index.ts"]) expect(paths).toContain(path);
    expect(SERVER_CORE.size).toBeGreaterThan(20);
    expect(paths.filter((p) => SERVER_CORE.has(p))).toEqual([]);
    expect(paths.filter((p) => /^(server|testing|compat)\/|^runtime\/(tasks|stores|service|http|adapters|grpc|bridges)\/|push/.test(p))).toEqual([]);
  });

  it("every file is reachable from the client (or its checks), every import resolves, and nothing imports a package or `node:`", async () => {
    const { files } = await clientOnlyOutput(version);
    const graph = reachable(files, ["index.ts", "client.ts", "client-validation.ts"]);
    expect(graph.unresolved).toEqual([]);
    const sources = Object.keys(files).filter((p) => p.endsWith(".ts"));
    expect(sources.filter((p) => !graph.files.has(p))).toEqual([]);
    // Not even a type import of a package: the output needs nothing installed.
    expect(Object.fromEntries(graph.packages)).toEqual({});
    // The client alone (no validation) does not reach the validators.
    const plain = reachable(files, ["client.ts"]);
    expect([...plain.files].filter((p) => p.startsWith("validators"))).toEqual([]);
    expect(plain.files.has("runtime/client/node-fetch.ts")).toBe(true);
  });

  it("type-checks with lib ES2022 + DOM and no Node types, under the strictest options", async () => {
    const { dir } = await clientOnlyOutput(version);
    const tsconfig = join(dirname(dir), "tsconfig.json");
    writeFileSync(
      tsconfig,
      JSON.stringify({
        compilerOptions: {
          target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2022", "DOM"], types: [], typeRoots: [], noEmit: true,
          strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, noImplicitOverride: true, noImplicitReturns: true,
          noPropertyAccessFromIndexSignature: true, noUnusedLocals: true, noUnusedParameters: true, isolatedModules: true, erasableSyntaxOnly: true, skipLibCheck: false,
        },
        include: [join(dir, "**", "*.ts")],
      }),
    );
    const run = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", tsconfig, "--pretty", "false", "--listFilesOnly"], { encoding: "utf8" });
    // Nothing of Node's types is even read.
    expect(run.stdout.split("\n").filter((f) => /@types[\\/]node/.test(f))).toEqual([]);
    const check = spawnSync(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", tsconfig, "--pretty", "false"], { encoding: "utf8" });
    expect(check.error).toBeUndefined();
    expect(`${check.stdout}${check.stderr}`.split("\n").filter((line) => / error TS\d+:/.test(line))).toEqual([]);
    expect(check.status).toBe(0);
  }, 120_000);
});

describe("--client-only with other options", () => {
  it("--telemetry brings the client's spans and none of the server's", async () => {
    const { files } = await clientOnlyOutput("1.0.1", { telemetry: true });
    const paths = Object.keys(files);
    expect(paths).toContain("runtime/telemetry/client.ts");
    expect(paths.filter((p) => /runtime\/telemetry\/(server|store|http-answer)\.ts$/.test(p) || SERVER_CORE.has(p))).toEqual([]);
    expect(files["client.ts"]).toContain("tracedTransport(");
    const graph = reachable(files, ["index.ts", "client.ts", "client-validation.ts"]);
    expect(graph.unresolved).toEqual([]);
    expect([...new Set([...graph.packages.values()].flat())]).toEqual(["@opentelemetry/api"]);
  });

  it.each([
    [{ frameworks: ["express"] as const }, "--framework"],
    [{ stores: ["postgres"] as const }, "--store"],
    [{ compat: "0.3.0" }, "--compat"],
    [{ testing: true }, "--testing"],
    [{ bridges: ["ai-sdk"] as const }, "--bridge"],
    [{ transports: ["grpc"] as const }, "--transports grpc"],
  ])("refuses %j, naming %s", async (options, name) => {
    await expect(generate({ spec: "1.0.1", clientOnly: true, ...options })).rejects.toThrow(new RegExp(`--client-only emits only the client; it cannot go with ${name.replace(/[-]/g, "\\-")}`));
  });
});
