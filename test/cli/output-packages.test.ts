/**
 * `generate` with gRPC or a store in a project that lacks their packages used to exit 0 and leave the
 * user with tsc's errors in generated files. The packages the output imports are checked against the
 * nearest package.json (from the output folder up, as the frameworks are), and a warning names the
 * missing ones with the command that installs them (issue 29, item 16). The output is still written:
 * the user may install after generating.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { importedPackages } from "../../src/output-packages.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");
function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function projectWith(dependencies: Record<string, string>, devDependencies: Record<string, string> = {}): string {
  const dir = join(tempDir(), "app");
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "app", dependencies, devDependencies }));
  return dir;
}

describe("generate names the packages its output needs and the project lacks (issue 29, item 16)", () => {
  it("gRPC and a PostgreSQL store in a project without them: a warning with the npm command, exit 0, the output written", () => {
    const dir = projectWith({ fastify: "^5.0.0" });
    const r = run(["generate", "--spec", "1.0.1", "--transports", "jsonrpc,grpc", "--store", "postgres", "--out", "src/a2a"], dir);
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe(
      "a2a-codegen: warning: the output needs packages package.json does not list: @grpc/grpc-js, pg, protobufjs, @types/pg; " +
        "it compiles once they are installed: npm i @grpc/grpc-js@1 pg@8 protobufjs@8 && npm i -D @types/pg@8",
    );
    expect(existsSync(join(dir, "src", "a2a", "server", "grpc.ts"))).toBe(true);
  });

  it("Redis, with no package.json at all: says so, and the command", () => {
    const dir = tempDir();
    const r = run(["generate", "--spec", "0.3.0", "--store", "redis", "--out", "a2a"], dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("the output needs packages no package.json (from the output folder up) lists: @redis/client; it compiles once they are installed: npm i @redis/client@6");
  });

  it("no warning when the project lists them all (and none for a plain output)", () => {
    const full = projectWith({ "@grpc/grpc-js": "^1.14.0", protobufjs: "^8.0.0", pg: "^8.0.0" }, { "@types/pg": "^8.0.0" });
    const r = run(["generate", "--spec", "1.0.1", "--transports", "jsonrpc,grpc", "--store", "postgres", "--out", "src/a2a"], full);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const plain = run(["generate", "--spec", "1.0.1", "--out", "src/a2a"], projectWith({}));
    expect(plain.stderr).toBe("");
  });

  it("reads the packages from the output's imports: gRPC's and the stores', none for a node-only output", async () => {
    const grpc = await generate({ spec: "1.0.1", transports: ["jsonrpc", "grpc"], stores: ["postgres", "redis"], frameworks: ["node"] });
    expect(importedPackages(grpc.files)).toEqual(["@grpc/grpc-js", "@redis/client", "pg", "protobufjs"]);
    const plain = await generate({ spec: "1.0.1", frameworks: ["node"] });
    expect(importedPackages(plain.files)).toEqual([]);
  });
});
