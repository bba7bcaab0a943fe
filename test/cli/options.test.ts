/**
 * One rule for every list flag (issue 29 item 17) and messages that suggest the name meant (item 18): a
 * list flag takes commas, spaces or repeats under its singular or plural spelling, on the light path and
 * through yargs alike; an unknown config key, flag or value names what is allowed and the closest.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.js";
import { parseGenerateFlags, resolveTargets } from "../../src/cli-up-to-date.js";
import { listValues, suggestion } from "../../src/options/declarations.js";
import { ROOT, tempDir } from "../support/project.js";

const CLI = join(ROOT, "dist", "bin.cjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the list rule", () => {
  it("splits on commas and spaces, trims, lower-cases, drops empties and repeats", () => {
    expect(listValues(["node,express"])).toEqual(["node", "express"]);
    expect(listValues(["node", "express"])).toEqual(["node", "express"]);
    expect(listValues([" Node , EXPRESS,", "node hono"])).toEqual(["node", "express", "hono"]);
    expect(listValues([","])).toEqual([]);
  });

  it("the light parser takes a list flag under either spelling, with = or not, repeated", () => {
    expect(parseGenerateFlags(["--frameworks", "node,express", "--framework=hono", "--stores", "redis", "--transport", "rest"])).toMatchObject({
      framework: ["node,express", "hono"],
      store: ["redis"],
      transports: ["rest"],
    });
  });

  it.each([
    ["framework", "frameworks", ["node", "express"]],
    ["store", "stores", ["postgres", "redis"]],
    ["transports", "transports", ["jsonrpc", "grpc"]],
  ] as const)("--%s: commas, spaces and repeats give the same %s", async (flag, key, names) => {
    const cwd = tempDir("list-flags-");
    const spellings = [{ [flag]: [names.join(",")] }, { [flag]: [...names] }, { [flag]: [names[0], names[1].toUpperCase()] }, { [flag]: [`${names[0]}, ${names[1]}`] }];
    for (const given of spellings) {
      const { targets } = await resolveTargets({ check: false, watch: false, verbose: false, quiet: false, allowTypeErrors: false, spec: "1.0.1", ...given }, cwd);
      expect((targets[0] as Record<string, unknown>)[key], JSON.stringify(given)).toEqual(names);
    }
  });

  it("generate: `--framework node,express`, `--frameworks node express` and the flag repeated make the same adapters", () => {
    const work = tempDir("list-flags-cli-");
    const lines = [
      ["--framework", "node,express"],
      ["--frameworks", "node", "express"],
      ["--framework", "node", "--framework", "express"],
      ["--framework=node", "--frameworks=express"],
    ];
    for (const [i, flags] of lines.entries()) {
      const out = join(work, `out-${i}`);
      const r = run(["generate", "--spec", "0.3.0", "--out", out, "--quiet", ...flags], work);
      expect(r.code, `${flags.join(" ")}: ${r.stderr}`).toBe(0);
      expect(readdirSync(join(out, "server")).sort(), flags.join(" ")).toEqual(["core.ts", "express.ts", "node.ts"]);
    }
  });
});

describe("suggestions", () => {
  it("names the closest: by edit distance, by the same letters, or by the one a prefix begins", () => {
    expect(suggestion("fastfy", ["node", "express", "fastify", "hono"])).toBe("fastify");
    expect(suggestion("grcp", ["jsonrpc", "rest", "grpc"])).toBe("grpc");
    expect(suggestion("0.3", ["0.2.6", "0.3.0", "1.0.1"])).toBe("0.3.0");
    expect(suggestion("koa", ["node", "express", "fastify", "hono"])).toBeUndefined();
  });

  it("an unknown config key names the key meant and every allowed key", () => {
    expect(() => parseConfig({ framework: ["node"] }, "a2a-codegen.config.json", ROOT)).toThrow(
      /^a2a-codegen.config.json at \/framework: unknown key "framework" \(did you mean "frameworks"\?\); allowed: spec, .*frameworks, transports, stores, .*targets$/,
    );
    expect(() => parseConfig({ targets: [{ store: ["redis"] }] }, "a2a-codegen.config.json", ROOT)).toThrow(/unknown key "store" \(did you mean "stores"\?\)/);
    expect(() => parseConfig({ outt: "x" }, "a2a-codegen.config.json", ROOT)).toThrow(/unknown key "outt" \(did you mean "out"\?\)/);
  });

  it("an unknown config value names the allowed values and the closest, at its pointer", () => {
    const cases: Array<[Record<string, unknown>, RegExp, string]> = [
      [{ frameworks: ["node", "fastfy"] }, /unknown framework "fastfy" \(did you mean "fastify"\?\); frameworks: node, express, fastify, hono/, "/frameworks/1"],
      [{ stores: ["postgress"] }, /unknown store "postgress" \(did you mean "postgres"\?\); stores: postgres, mysql, redis/, "/stores/0"],
      [{ transports: ["jsonrpc", "grcp"] }, /unknown transport "grcp" \(did you mean "grpc"\?\); transports: jsonrpc, rest, grpc/, "/transports/1"],
      [{ compat: "0.3" }, /unknown spec version "0.3" \(did you mean "0.3.0"\?\); bundled versions: .*0\.3\.0/, "/compat"],
    ];
    for (const [config, message, pointer] of cases) {
      let error: { message: string; pointer?: string } | undefined;
      try {
        parseConfig(config, "a2a-codegen.config.json", ROOT);
      } catch (e) {
        error = e as { message: string; pointer?: string };
      }
      expect(error?.message, JSON.stringify(config)).toMatch(message);
      expect(error?.pointer, JSON.stringify(config)).toBe(pointer);
    }
  });

  it.each([
    [["generate", "--spec", "1.0.1", "--framework", "fastfy"], /error: unknown framework "fastfy" \(did you mean "fastify"\?\); frameworks: node, express, fastify, hono/],
    [["generate", "--spec", "1.0.1", "--stores", "postgress"], /error: unknown store "postgress" \(did you mean "postgres"\?\); stores: postgres, mysql, redis/],
    [["generate", "--spec", "1.0.1", "--transports", "jsonrpc,grcp"], /error: unknown transport "grcp" \(did you mean "grpc"\?\)/],
    [["generate", "--spec", "1.0.2"], /error: unknown spec version "1\.0\.2" \(did you mean "1\.0\.1"\?\); bundled versions: /],
    [["generate", "--spec", "1.0.1", "--framework", ","], /error: --framework needs at least one of: node, express, fastify, hono/],
    [["generate", "--frameworkz", "node"], /error: Unknown argument: frameworkz \(did you mean --framework\?\)/],
    [["card", "--form", "0.3.0"], /error: Unknown argument: form \(did you mean --from\?\)/],
    [["init", "x", "--store", "postgress"], /error: unknown store "postgress" \(did you mean "postgres"\?\); stores: memory, postgres, mysql, redis/],
    [["init", "x", "--framework", "fastfy"], /error: unknown framework "fastfy" \(did you mean "fastify"\?\)/],
    [["init", "x", "--transports", "jsonrpc,rst"], /error: unknown transport "rst" \(did you mean "rest"\?\)/],
  ])("%j is refused with exit 2, naming what was meant", (args, message) => {
    const work = tempDir("suggest-");
    const r = run(args, work);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    // Nothing was written.
    expect(readdirSync(work)).toEqual([]);
  });
});
