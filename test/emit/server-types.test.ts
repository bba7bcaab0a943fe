/**
 * The generated server's types come from the version's models and method table (issue 13 item 3): the
 * executor, the card options, and the `methods` option's handlers of a method the runtime does not know
 * (`tasks/list` added to 0.3.0: `ParamsOf<"tasks/list">` in, `ResultOf<"tasks/list">` out), with no
 * `never` unions and no casts of the options in generated code. A type probe (its @ts-expect-error lines
 * must fail, and only they) and a call through the core show both halves.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateAndWrite } from "../../src/generate.js";
import type { JsonObject } from "../../src/schema/json.js";
import { GENERATED, projectTempDir, readSchema, ROOT } from "../support/project.js";
import { addListTasksMethod } from "../support/derived-schemas.js";

const PROBE = (out: string) => `
import { createA2AServer, type AgentExecutor, type CustomMethodName } from "${out}/server/core.js";
import type { AgentCard, Task } from "${out}/models.js";
declare const card: AgentCard;
declare const tasks: Task[];
const executor: AgentExecutor = { execute(_ctx, events) { events.completed("done"); } };
const custom: CustomMethodName = "tasks/list";
createA2AServer({
  card,
  executor,
  methods: {
    "tasks/list": async (params) => tasks.slice(0, params.pageSize ?? 10).filter((t) => params.contextId === undefined || t.contextId === params.contextId),
    "x/extension": (params) => ({ echo: params }),
  },
});
createA2AServer({
  card,
  executor,
  methods: {
    // @ts-expect-error the result of tasks/list is a list of tasks
    "tasks/list": async () => ({ tasks }),
  },
});
createA2AServer({
  card,
  executor,
  methods: {
    // @ts-expect-error tasks/list params have no limit
    "tasks/list": async (params) => tasks.slice(0, params.limit),
  },
});
// @ts-expect-error message/send is the runtime's own, not a custom method
const notCustom: CustomMethodName = "message/send";
// @ts-expect-error the card is the version's AgentCard
createA2AServer({ card: { name: "x" }, executor });
export {};
`;

function typeCheck(dir: string, out: string, probe: string): { status: number | null; errors: number[] } {
  writeFileSync(join(dir, "probe.ts"), probe);
  const config = JSON.parse(readFileSync(join(ROOT, "test/types/tsconfig.json"), "utf8")) as { include: string[] };
  config.include = [`${out}/**/*.ts`, "./probe.ts"];
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
  const run = spawnSync(join(ROOT, "node_modules/.bin/tsc"), ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
  const errors = [...new Set([...run.stdout.matchAll(/probe\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
  if (run.status !== 0 && errors.length === 0) throw new Error(run.stdout + run.stderr);
  return { status: run.status, errors };
}

describe("server types from the method table (a schema that adds tasks/list)", () => {
  let dir: string;
  let out: string;
  beforeAll(async () => {
    dir = projectTempDir();
    const schema = readSchema("0.3.0") as { definitions: Record<string, JsonObject> };
    addListTasksMethod(schema.definitions);
    writeFileSync(join(dir, "a2a-0.3.0-list.json"), JSON.stringify(schema));
    writeFileSync(join(dir, "a2a-0.3.0-list.overlay.json"), readFileSync(join(ROOT, "schema/a2a-0.3.0.overlay.json")));
    out = join(dir, "out");
    await generateAndWrite({ schema: join(dir, "a2a-0.3.0-list.json"), out, frameworks: ["node"], cwd: dir });
  });

  it("names tasks/list as the one custom method", () => {
    expect(readFileSync(join(out, "server/core.ts"), "utf8")).toMatch(/export type CustomMethodName = "tasks\/list";/);
  });

  it("type-checks the handlers from ParamsOf/ResultOf: the probe compiles, and without its @ts-expect-error exactly those lines fail", () => {
    const probe = PROBE(out);
    expect(typeCheck(dir, out, probe)).toEqual({ status: 0, errors: [] });
    const lines = probe.split("\n");
    const expected = lines.map((line, i) => (line.includes("@ts-expect-error") ? i + 2 : 0)).filter((n) => n > 0);
    const bare = lines.map((line) => line.replace(/\/\/ @ts-expect-error.*$/, "// (expectation removed)")).join("\n");
    expect(typeCheck(dir, out, bare).errors).toEqual(expected);
  });

  it("the handler serves the method: its params in, its result out", async () => {
    const core = (await import(join(out, "server/core.ts"))) as typeof import("../../generated/a2a-0.3.0/server/core.js");
    const seen: unknown[] = [];
    const server = core.createA2AServer({
      card: { name: "A", description: "d", url: "http://127.0.0.1:1/", version: "1", protocolVersion: "0.3.0", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] },
      executor: { execute: (_ctx, events) => events.completed("done") },
      methods: { "tasks/list": (params: unknown) => (seen.push(params), []) },
      logger: { error: () => undefined },
    });
    const response = await server.handle({ method: "POST", path: "/", query: new URLSearchParams(), headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: { pageSize: 2 } }) });
    expect(response).toMatchObject({ kind: "json", status: 200 });
    expect(JSON.parse((response as { body: string }).body)).toEqual({ jsonrpc: "2.0", id: 1, result: [] });
    expect(seen).toEqual([{ pageSize: 2 }]);
    await server.close();
  });
});

describe("generated servers hold no never unions and no casts of their options", () => {
  it.each(readdirSync(GENERATED))("%s/server/core.ts", (version) => {
    const text = readFileSync(join(GENERATED, version, "server/core.ts"), "utf8");
    expect(text).not.toMatch(/\bnever\s*,\s*never\b/);
    expect(text).not.toMatch(/\bas unknown as\b/);
    expect(text).not.toMatch(/\(options as\b/);
  });
});
