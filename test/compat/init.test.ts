import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Message as Message03, Task as Task03 } from "@a2a-js/sdk";
import { ClientFactory as Factory03 } from "@a2a-js/sdk/client";
import { CancelTaskRequest, GetTaskRequest, Role, SubscribeToTaskRequest, TaskState, type Message, type StreamResponse, type Task } from "a2a-sdk-v1";
import { ClientFactory } from "a2a-sdk-v1/client";
import { sdkSend } from "../support/wire/jsonrpc-1.0.js";
import { drain, textOf, userMessage } from "../support/wire/jsonrpc.js";
import { CodegenError } from "../../src/errors.js";
import { init } from "../../src/scaffold/init.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * `init` scaffolds a 1.0.1 agent that serves 0.3 clients too (issue 10): `--compat 0.3.0` is on by default
 * for 1.0.1 (`--no-compat`, `compat: false`, turns it off; versions without a mapping have none), and the
 * project's own contract tests call the agent with the generated 0.3.0 client beside the 1.0.1 one. The
 * project is type-checked and its tests run on the repository's installed packages (the full install of a
 * scaffold from the packed tarball is test/scaffold/scaffold.test.ts).
 */
const codegenSpec = `file:${ROOT}`;

/**
 * `init --spec 0.3.0` serves JSON-RPC, HTTP+JSON and gRPC too (issue 9), with the same `--transports` choice
 * as 1.0.1: a 0.3 card (`url` + `preferredTransport`, `additionalInterfaces` with every binding, §5.6), and
 * the project's tests calling each binding.
 */
describe("init --spec 0.3.0 --transports", () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(tempDir("init-030-"), "agent");
    const result = await init({ dir, codegenSpec, framework: "hono", spec: "0.3.0" });
    expect(result.compat).toBeUndefined();
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  }, 120_000);

  it("by default the three bindings: the card's 0.3 fields, the config, the gRPC files and package", () => {
    const card = JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8")) as Json;
    expect(card).toMatchObject({ url: "http://127.0.0.1:3000/", preferredTransport: "JSONRPC" });
    expect(card.additionalInterfaces).toEqual([
      { url: "http://127.0.0.1:3000/", transport: "JSONRPC" },
      { url: "http://127.0.0.1:3000/rest", transport: "HTTP+JSON" },
      { url: "127.0.0.1:50051", transport: "GRPC" },
    ]);
    expect(JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ spec: "0.3.0", transports: ["jsonrpc", "rest", "grpc"] });
    for (const file of ["grpc.ts", "grpc-client.ts", "server/grpc.ts"]) expect(existsSync(join(dir, "generated", file)), file).toBe(true);
    expect((JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Json }).dependencies["@grpc/grpc-js"]).toBeDefined();
    expect(readFileSync(join(dir, "README.md"), "utf8")).toContain("curl -s http://127.0.0.1:3000/rest/v1/message:send");
  });

  it("the project type-checks, and its contract tests answer over each binding", () => {
    const typecheck = run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", ".", "--noEmit"], dir);
    expect(typecheck.out).toBe("");
    expect(typecheck.code).toBe(0);
    const tests = run(join(ROOT, "node_modules", ".bin", "vitest"), ["run", "--reporter", "verbose"], dir);
    expect(tests.code, tests.out).toBe(0);
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) expect(tests.out).toContain(`answers over ${binding}`);
    expect(tests.out).toMatch(/Tests\s+9 passed/);
  }, 180_000);

  it.each([
    ["0.3.0", "grpc", /Tests\s+4 passed/],
    ["1.0.1", "rest", /Tests\s+10 passed/],
  ] as const)("A2A %s with --transports %s only (no JSON-RPC): the config asks for it, the project type-checks and its tests call it", async (spec, transport, passed) => {
    const only = join(tempDir("init-one-"), "agent");
    await init({ dir: only, codegenSpec, framework: "node", spec, transports: [transport] });
    expect(JSON.parse(readFileSync(join(only, "a2a-codegen.config.json"), "utf8"))).toMatchObject({ transports: [transport] });
    symlinkSync(join(ROOT, "node_modules"), join(only, "node_modules"), "dir");
    const typecheck = run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", ".", "--noEmit"], only);
    expect(typecheck.out).toBe("");
    const tests = run(join(ROOT, "node_modules", ".bin", "vitest"), ["run"], only);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.out).toMatch(passed);
  }, 180_000);

  it("--transports chooses: REST only makes it the card's url and preferredTransport; JSON-RPC only lists no additionalInterfaces; 0.2.5 has neither binding", async () => {
    const rest = join(tempDir("init-030-"), "rest");
    await init({ dir: rest, codegenSpec, framework: "node", spec: "0.3.0", transports: ["rest"] });
    const card = JSON.parse(readFileSync(join(rest, "agent-card.json"), "utf8")) as Json;
    expect(card).toMatchObject({ url: "http://127.0.0.1:3000/rest", preferredTransport: "HTTP+JSON" });
    expect(card.additionalInterfaces).toBeUndefined();
    const plain = join(tempDir("init-030-"), "plain");
    await init({ dir: plain, codegenSpec, framework: "node", spec: "0.3.0", transports: ["jsonrpc"] });
    expect(JSON.parse(readFileSync(join(plain, "agent-card.json"), "utf8"))).not.toHaveProperty("additionalInterfaces");
    await expect(init({ dir: join(tempDir("init-030-"), "old"), codegenSpec, spec: "0.2.5", transports: ["grpc"] })).rejects.toThrow("A2A 0.2.5 has no gRPC binding");
  }, 120_000);
});
type Json = Record<string, unknown>;

function run(command: string, args: string[], cwd: string) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("init --compat", () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(tempDir("compat-init-"), "agent");
    // The default scaffold (JSON-RPC, HTTP+JSON and gRPC), on node:http.
    const result = await init({ dir, codegenSpec, framework: "node" });
    expect(result.compat).toBe("0.3.0");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  }, 120_000);

  it("is on by default for 1.0.1: the config asks for it, generated/ has the 0.3.0 files, the README says how 0.3 clients call", () => {
    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    expect(config).toMatchObject({ spec: "1.0.1", compat: "0.3.0" });
    for (const file of ["client.ts", "mapping.ts", "validators.ts"]) expect(existsSync(join(dir, "generated", "compat", "a2a-0.3.0", file)), file).toBe(true);
    expect(readFileSync(join(dir, "generated", "server", "core.ts"), "utf8")).toContain("serveCompat(");
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("## A2A 0.3 clients too");
    expect(readme).toContain('"method":"message/send"');
  });

  it("the project type-checks, and its contract tests pass with a 0.3 client and a 1.0 client", () => {
    const typecheck = run(join(ROOT, "node_modules", ".bin", "tsc"), ["-p", ".", "--noEmit"], dir);
    expect(typecheck.out).toBe("");
    expect(typecheck.code).toBe(0);
    const tests = run(join(ROOT, "node_modules", ".bin", "vitest"), ["run", "--reporter", "verbose"], dir);
    expect(tests.code, tests.out).toBe(0);
    expect(tests.out).toContain("agent, called by an A2A 0.3 client");
    expect(tests.out).toContain("a task the 0.3 client starts, the 1.0 client finishes");
    // 0.3 on every binding the card lists (issue 9): 0.3's REST routes and gRPC service beside 1.0's.
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) expect(tests.out).toContain(`answers a 0.3 client over ${binding}`);
    // 4 contract tests, one answer per binding (3), the 4 of the 0.3 client and its answer per binding (3).
    expect(tests.out).toMatch(/Tests\s+16 passed/);
  }, 180_000);

  it("the card lists each binding for 0.3 clients too, and the README says where they are served", () => {
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("0.3 clients are served on every\nbinding the card lists");
    expect(readme).toContain("/rest/v1/");
  });

  it("--no-compat (compat: false) serves 1.0.1 only; a version without a mapping has none; an unknown pair is a usage error", async () => {
    const plain = join(tempDir("compat-init-"), "plain");
    expect((await init({ dir: plain, codegenSpec, framework: "node", transports: ["jsonrpc"], compat: false })).compat).toBeUndefined();
    expect(JSON.parse(readFileSync(join(plain, "a2a-codegen.config.json"), "utf8"))).not.toHaveProperty("compat");
    expect(existsSync(join(plain, "generated", "compat"))).toBe(false);
    expect(readFileSync(join(plain, "test", "agent.test.ts"), "utf8")).not.toContain("0.3");

    const old = join(tempDir("compat-init-"), "old");
    expect((await init({ dir: old, codegenSpec, framework: "node", spec: "0.3.0" })).compat).toBeUndefined();

    const bad = init({ dir: join(tempDir("compat-init-"), "bad"), codegenSpec, spec: "0.3.0", compat: "0.2.5" });
    await expect(bad).rejects.toBeInstanceOf(CodegenError);
    await expect(bad).rejects.toThrow("no compat mapping from 0.3.0 to 0.2.5; supported: --spec 1.0.1 --compat 0.3.0");
  }, 120_000);

  it("the CLI: --no-compat turns it off", () => {
    const work = tempDir("compat-init-");
    const r = run(process.execPath, [join(ROOT, "dist", "bin.cjs"), "init", "a", "--no-compat", "--framework", "node", "--transports", "jsonrpc", "--codegen-spec", codegenSpec], work);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toContain("serving A2A 0.3.0 clients too");
    expect(existsSync(join(work, "a", "generated", "compat"))).toBe(false);
    const on = run(process.execPath, [join(ROOT, "dist", "bin.cjs"), "init", "b", "--framework", "node", "--transports", "jsonrpc", "--codegen-spec", codegenSpec], work);
    expect(on.out).toContain("generated/ for A2A 1.0.1 (serving A2A 0.3.0 clients too)");
  }, 120_000);

  describe("@a2a-js/sdk 0.3.14's and 1.3.0's clients against the scaffolded agent", () => {
    let running: { url: string; close(): Promise<void> };
    let c03: Awaited<ReturnType<Factory03["createFromUrl"]>>;
    let c10: Awaited<ReturnType<ClientFactory["createFromUrl"]>>;
    beforeAll(async () => {
      for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
      const server = (await import(join(dir, "src", "server.ts"))) as { start(port: number): Promise<{ url: string; close(): Promise<void> }> };
      // The scaffold keeps its tasks in ./data/agent.db of the folder it starts in: here, a file of the project's.
      vi.stubEnv("A2A_STORE_URL", `sqlite:${join(dir, "data", "agent.db")}`);
      running = await server.start(0);
      c03 = await new Factory03().createFromUrl(running.url);
      c10 = await new ClientFactory().createFromUrl(running.url);
    }, 120_000);
    afterAll(async () => {
      await running.close();
      vi.restoreAllMocks();
      vi.unstubAllEnvs();
    });
    const words = (n: number) => `stream ${Array.from({ length: n }, (_, i) => `w${i}`).join(" ")}`;

    it("send and get: each in its own version; a task one starts the other finishes", async () => {
      expect(textOf((await c03.sendMessage({ message: userMessage("hi") })) as Message03)).toBe("You said: hi");
      const reply10 = (await c10.sendMessage(sdkSend("hi"))) as Message;
      expect(reply10.role).toBe(Role.ROLE_AGENT);
      const task03 = (await c03.sendMessage({ message: userMessage("name") })) as Task03;
      expect(task03).toMatchObject({ kind: "task", status: { state: "input-required" } });
      const done = (await c10.sendMessage(sdkSend("Ada", { taskId: task03.id, contextId: task03.contextId }))) as Task;
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect((await c03.getTask({ id: task03.id })).status.state).toBe("completed");
      expect((await c10.getTask(GetTaskRequest.fromJSON({ id: task03.id }))).history).toHaveLength(4);
    });

    it("stream: both get the words as chunks of one artifact", async () => {
      const events03 = await drain(c03.sendMessageStream({ message: userMessage("stream a b c") }));
      expect(events03.flatMap((e) => (e.kind === "artifact-update" ? [textOf(e.artifact)] : [])).join("")).toBe("a b c ");
      expect(events03.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
      const events10 = await drain(c10.sendMessageStream(sdkSend("stream a b c")));
      expect(events10.filter((e) => e.payload?.$case === "artifactUpdate")).toHaveLength(3);
    });

    it("cancel and resubscribe/subscribe: a 1.3.0 client's streaming task, joined by both, canceled by the 0.3.14 client", async () => {
      const stream = c10.sendMessageStream(sdkSend(words(60)));
      const first = (await stream.next()).value as StreamResponse;
      const taskId = first.payload?.$case === "task" ? first.payload.value.id : "";
      const sub03 = c03.resubscribeTask({ id: taskId });
      const sub10 = c10.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }));
      expect(((await sub03.next()).value as Task03).id).toBe(taskId);
      expect(((await sub10.next()).value as StreamResponse).payload?.$case).toBe("task");
      expect(await c03.cancelTask({ id: taskId })).toMatchObject({ kind: "task", status: { state: "canceled" } });
      expect((await drain(sub03)).at(-1)).toMatchObject({ final: true, status: { state: "canceled" } });
      const last10 = (await drain(sub10)).at(-1)?.payload;
      expect(last10?.$case === "statusUpdate" ? last10.value.status?.state : undefined).toBe(TaskState.TASK_STATE_CANCELED);
      await drain(stream);
      await expect(c10.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }))).rejects.toThrow();
    });
  });
});
