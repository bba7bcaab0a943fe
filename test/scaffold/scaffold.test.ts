import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import type { ClientTransportFactory } from "../../src/runtime/client/transport.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * `a2a-codegen init`, as a user runs it: the README's commands in a fresh folder, with a2a-codegen from
 * a local `npm pack` run through npx (the README's way before publication; never a registry publish and no
 * hidden variable), then the project's own type-check, tests and server, for each framework. The
 * project's dependency on a2a-codegen is the tarball init ran from, so `npm install` installs it. One
 * `npm install` is shared by the four projects.
 */
type Json = Record<string, unknown>;
const work = tempDir("a2a-codegen-scaffold-");
let env: NodeJS.ProcessEnv;
let tarball: string;

function sh(command: string, args: string[], cwd: string, timeout = 300_000): { code: number | null; out: string } {
  const r = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}` };
}

/** The README's "Build an agent" commands, read from the README itself. */
function readmeCommands(): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split("## Build an agent")[1]?.split("\n## ")[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block
    .split("\n")
    .map((l) => l.replace(/#.*$/, "").trim())
    .filter(Boolean);
}

/** The README's curl example, sent as written (its headers and body) to the scaffolded agent. */
async function readmeCurl(url: string): Promise<void> {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const curl = /```sh\n(curl [\s\S]*?)```/.exec(readme)?.[1]?.replace(/\\\n\s*/g, " ") ?? "";
  const target = /curl -s (\S+)/.exec(curl)?.[1] ?? "";
  expect(target.startsWith("http://127.0.0.1:3000/")).toBe(true);
  const headers = Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1] as string, m[2] as string]));
  expect(headers["A2A-Version"]).toBe("1.0");
  const body = /-d '([^']+)'/.exec(curl)?.[1] ?? "";
  const response = await fetch(target.replace("http://127.0.0.1:3000", url), { method: "POST", headers, body });
  const json = (await response.json()) as Json;
  expect(json.error, JSON.stringify(json)).toBeUndefined();
  expect(JSON.stringify(json.result)).toContain("You said: hello");
}

/** The a2a-codegen installed in a project, as `npx a2a-codegen` runs it there. */
const codegenIn = (dir: string) => join(dir, "node_modules", ".bin", "a2a-codegen");

beforeAll(() => {
  // The README's install step before publication: `npm pack` in the checkout.
  const packed = execFileSync("npm", ["pack", "--pack-destination", work, "--silent"], { cwd: ROOT, encoding: "utf8" }).trim().split("\n").pop() as string;
  tarball = join(work, packed);
  env = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
}, 120_000);

async function serve(dir: string): Promise<{ child: ChildProcess; url: string; exited: Promise<number | null> }> {
  // Below the kernel's ephemeral range (32768+ on Linux), where every other test's server (port 0) lands:
  // after this one stops, nothing else takes its port while the test checks that it is free.
  const port = 20_000 + 2 * Math.floor(Math.random() * 6_000);
  const child = spawn("npm", ["start"], { cwd: dir, env: { ...env, PORT: String(port), GRPC_PORT: String(port + 1) }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not listen: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
  return { child, url: `http://127.0.0.1:${port}`, exited };
}

/** Resolves once no process of the group is left; fails after `timeoutMs`. */
async function groupGone(pgid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process group ${pgid} still running ${timeoutMs} ms after npm exited`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function talk(dir: string, url: string): Promise<void> {
  const { A2AClient } = (await import(join(dir, "generated", "client.ts"))) as typeof import("../../generated/a2a-0.3.0/client.js");
  const client = await A2AClient.fromAgentUrl(url);
  const methods = await methodsOf(dir);
  const reply = (await client.call(methods.send as never, A2AClient.sendParams("hello") as never)) as unknown as Json;
  const text = JSON.stringify(reply);
  expect(text).toContain("You said: hello");
  const chunks: string[] = [];
  for await (const event of client.stream(methods.stream as never, A2AClient.sendParams("stream a b") as never)) {
    const artifact = (A2AClient.unwrap(event) as Json).artifact as Json | undefined;
    if (artifact) chunks.push(String(((artifact.parts as Json[])[0] as Json).text));
  }
  expect(chunks.join("")).toBe("a b ");
}

/**
 * The default 1.0.1 project serves JSON-RPC, HTTP+JSON and gRPC (issue 9): its card lists the three in that
 * order, with the addresses it serves them at, and the generated client answers over each (forced by `binding`).
 */
async function talkEveryBinding(dir: string, url: string): Promise<void> {
  const { A2AClient, restTransport } = (await import(join(dir, "generated", "client.ts"))) as typeof import("../../generated/a2a-1.0.1/client.js");
  const { grpcTransport } = (await import(join(dir, "generated", "grpc-client.ts"))) as { grpcTransport: ClientTransportFactory };
  const any = await A2AClient.fromAgentUrl(url, { transports: [restTransport, grpcTransport] });
  const interfaces = (any.card?.supportedInterfaces ?? []).map((i) => [i.protocolBinding, i.url, i.protocolVersion]);
  const port = Number(new URL(url).port);
  // With --compat 0.3.0 (init's default for 1.0.1), each binding is listed for 0.3 clients too (docs/compat.md).
  expect(interfaces).toEqual([
    ["JSONRPC", `${url}/`, "1.0"],
    ["JSONRPC", `${url}/`, "0.3"],
    ["HTTP+JSON", `${url}/rest`, "1.0"],
    ["HTTP+JSON", `${url}/rest`, "0.3"],
    ["GRPC", `127.0.0.1:${port + 1}`, "1.0"],
    ["GRPC", `127.0.0.1:${port + 1}`, "0.3"],
  ]);
  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
    const client = await A2AClient.fromAgentUrl(url, { transports: [restTransport, grpcTransport], binding });
    expect(client.transport.binding).toBe(binding);
    expect(JSON.stringify(await client.sendMessage(A2AClient.sendParams("hello")))).toContain("You said: hello");
  }
}

/** A 0.3.0 project (issue 9): its card's `url` + `preferredTransport` and `additionalInterfaces` name the three bindings where they are served; the generated client answers over each. */
async function talkEveryBinding03(dir: string, url: string): Promise<void> {
  const { A2AClient, restTransport } = (await import(join(dir, "generated", "client.ts"))) as typeof import("../../generated/a2a-0.3.0/client.js");
  const { grpcTransport } = (await import(join(dir, "generated", "grpc-client.ts"))) as { grpcTransport: ClientTransportFactory };
  const any = await A2AClient.fromAgentUrl(url, { transports: [restTransport, grpcTransport] });
  const port = Number(new URL(url).port);
  expect([any.card?.url, any.card?.preferredTransport]).toEqual([`${url}/`, "JSONRPC"]);
  expect(any.card?.additionalInterfaces).toEqual([
    { url: `${url}/`, transport: "JSONRPC" },
    { url: `${url}/rest`, transport: "HTTP+JSON" },
    { url: `127.0.0.1:${port + 1}`, transport: "GRPC" },
  ]);
  for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"] as const) {
    const client = await A2AClient.fromAgentUrl(url, { transports: [restTransport, grpcTransport], binding });
    expect(client.transport.binding).toBe(binding);
    expect(JSON.stringify(await client.sendMessage(A2AClient.sendParams("hello")))).toContain("You said: hello");
  }
}

async function methodsOf(dir: string): Promise<Record<string, string>> {
  const protocol = (await import(join(dir, "generated", "protocol.ts"))) as { A2A_PROFILE: { methods: Record<string, string> } };
  return protocol.A2A_PROFILE.methods;
}

describe("a2a-codegen init", () => {
  let first: string;

  it("the README's commands give a project whose server answers the generated client", async () => {
    const commands = readmeCommands();
    // The README names the tarball `/path/to/<file>`: here, the one just packed into this test's temporary folder.
    expect(commands).toEqual([`npx --yes --package /path/to/${basename(tarball)} a2a-codegen init my-agent`, "cd my-agent", "npm install", "npm start"]);
    const [npx, ...args] = (commands[0] as string).replace("/path/to/", `${work}/`).split(" ");
    const init = sh(npx as string, args, work);
    // 10 files and the vendored tarball.
    expect(init.out).toMatch(/created my-agent: 11 files, and generated\/ for A2A 1\.0\.1/);
    expect(init.out).toContain(`a2a-codegen dependency: file:vendor/${basename(tarball)} (in the project: it installs anywhere)`);
    expect(init.code, init.out).toBe(0);
    first = join(work, "my-agent");
    const manifest = JSON.parse(readFileSync(join(first, "package.json"), "utf8")) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    // The tarball init ran from, copied into the project (issue 29, item 15): teammates and CI install it too.
    expect(manifest.devDependencies["a2a-codegen"]).toBe(`file:vendor/${basename(tarball)}`);
    expect(readFileSync(join(first, "vendor", basename(tarball)))).toEqual(readFileSync(realpathSync(tarball)));
    // gRPC is chosen by default for 1.0.1: its packages are dependencies; the README says how to call each binding.
    expect(Object.keys(manifest.dependencies)).toEqual(expect.arrayContaining(["@grpc/grpc-js", "protobufjs"]));
    const projectReadme = readFileSync(join(first, "README.md"), "utf8");
    for (const binding of ["JSON-RPC", "HTTP+JSON", "gRPC"]) expect(projectReadme).toContain(binding);
    const install = sh("npm", ["install"], first);
    expect(install.code, install.out).toBe(0);
    expect(install.out).not.toMatch(/EBADENGINE/);
    const server = await serve(first);
    try {
      await talk(first, server.url);
      await talkEveryBinding(first, server.url);
      await readmeCurl(server.url);
    } finally {
      process.kill(-(server.child.pid as number), "SIGTERM");
    }
    // Stopped cleanly: the processes are gone (npm may exit before the node process it ran has closed its
    // servers: the whole process group is waited for) and the port is free.
    await server.exited;
    await groupGone(server.child.pid as number);
    await expect(fetch(server.url)).rejects.toThrow();
    // Two npm installs from the registry: minutes on a loaded 2-core machine (the suite's other files run meanwhile).
  }, 600_000);

  it("the project's own tests and type-check pass", () => {
    const test = sh("npm", ["test"], first);
    // The 4 contract tests, one answer over each of the three bindings, the 2 in process (the test kit), and the 4 of a 0.3 client with its answer over each binding (--compat 0.3.0 by default).
    expect(test.out).toMatch(/16 passed/);
    expect(test.code).toBe(0);
    const check = sh("npm", ["run", "check"], first);
    expect(check.code, check.out).toBe(0);
  });

  it.each([
    ["express", "0.2.5"],
    ["hono", "0.3.0"],
    ["node", "0.1.0"],
    ["fastify", "0.3.0"],
  ])("%s (A2A %s): init, type-check, its tests, its server", async (framework, spec) => {
    // Share the first project's install, with this framework added.
    const extra: Record<string, string[]> = { express: ["express@^5.1.0", "@types/express@^5.0.0"], hono: ["hono@^4.8.0", "@hono/node-server@^1.14.0"], node: [] };
    if (extra[framework]?.length) {
      const add = sh("npm", ["install", "--no-save", ...(extra[framework] as string[])], first);
      expect(add.code, add.out).toBe(0);
    }
    const init = sh(codegenIn(first), ["init", `agent-${framework}-${spec}`, "--framework", framework, "--spec", spec], work);
    expect(init.code, init.out).toBe(0);
    const dir = join(work, `agent-${framework}-${spec}`);
    // Versions without a proto serve JSON-RPC only, and need no gRPC package; 0.3.0 (its proto bundled) serves the three bindings.
    const deps = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> }).dependencies;
    if (spec === "0.3.0") expect(deps["@grpc/grpc-js"]).toBeDefined();
    else expect(deps["@grpc/grpc-js"]).toBeUndefined();
    symlinkSync(join(first, "node_modules"), join(dir, "node_modules"), "dir");
    const typecheck = sh("npm", ["run", "typecheck"], dir);
    expect(typecheck.code, typecheck.out).toBe(0);
    const test = sh("npm", ["test"], dir);
    // The 4 contract tests and the 2 in process (the test kit); 0.3.0: one answer over each binding too.
    expect(test.out).toMatch(spec === "0.3.0" ? /9 passed/ : /6 passed/);
    const server = await serve(dir);
    try {
      await talk(dir, server.url);
      if (spec === "0.3.0") await talkEveryBinding03(dir, server.url);
    } finally {
      process.kill(-(server.child.pid as number), "SIGTERM");
    }
    await server.exited;
  });

  it("every installed package supports the Node versions the scaffold declares (engines)", () => {
    // The shared install holds every framework's packages by now (fastify, then express and hono added).
    const manifest = JSON.parse(readFileSync(join(first, "package.json"), "utf8")) as { engines: { node: string } };
    const semver = createRequire(join(first, "package.json"))("semver") as { subset: (a: string, b: string) => boolean };
    const narrower: string[] = [];
    const visit = (modules: string) => {
      for (const name of readdirSync(modules)) {
        if (name.startsWith(".")) continue;
        if (name.startsWith("@")) {
          visit(join(modules, name));
          continue;
        }
        const pkg = join(modules, name, "package.json");
        if (!existsSync(pkg)) continue;
        const { engines, version } = JSON.parse(readFileSync(pkg, "utf8")) as { engines?: { node?: string }; version: string };
        if (engines?.node && !semver.subset(manifest.engines.node, engines.node)) narrower.push(`${name}@${version} needs node ${engines.node}`);
        if (existsSync(join(modules, name, "node_modules"))) visit(join(modules, name, "node_modules"));
      }
    };
    visit(join(first, "node_modules"));
    expect(narrower, `declared: ${manifest.engines.node}`).toEqual([]);
  });

  it("regenerating with another spec version: user files untouched, the spec changes and the type errors they cause reported (exit 4)", () => {
    const init = sh(codegenIn(first), ["init", "regen", "--spec", "0.2.5"], work);
    expect(init.code, init.out).toBe(0);
    const dir = join(work, "regen");
    symlinkSync(join(first, "node_modules"), join(dir, "node_modules"), "dir");
    // The user's own code leans on a fact of 0.2.5: where the card is served.
    const agentFile = join(dir, "src", "agent.ts");
    const edited = `${readFileSync(agentFile, "utf8")}\nimport { WELL_KNOWN_AGENT_CARD_PATH } from "../generated/protocol.js";\nexport const cardPath: "/.well-known/agent.json" = WELL_KNOWN_AGENT_CARD_PATH;\n`;
    writeFileSync(agentFile, edited);
    const line = edited.split("\n").findIndex((l) => l.startsWith("export const cardPath")) + 1;
    const userFiles = ["src/agent.ts", "src/server.ts", "test/agent.test.ts", "agent-card.json", "package.json", "README.md"];
    const before = Object.fromEntries(userFiles.map((f) => [f, readFileSync(join(dir, f), "utf8")]));
    const protocolBefore = readFileSync(join(dir, "generated", "protocol.ts"), "utf8");

    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Json;
    writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ ...config, spec: "0.3.0" }, null, 2));
    const regen = sh(codegenIn(first), ["generate"], dir);
    expect(regen.code, regen.out).toBe(4);
    expect(regen.out).toMatch(/generated is written; fix your code \(or pass --allow-type-errors to exit 0/);
    expect(regen.out).toMatch(/The spec changed\. A2A 0\.2\.5 → 0\.3\.0/);
    expect(regen.out).toMatch(/\+ agent\/getAuthenticatedExtendedCard/);
    expect(regen.out).toMatch(/wellKnownAgentCardPath: "\/\.well-known\/agent\.json" → "\/\.well-known\/agent-card\.json"/);
    expect(regen.out).toMatch(new RegExp(`src/agent\\.ts:${line}:\\d+ TS2322 Type '"/\\.well-known/agent-card\\.json"' is not assignable`));
    for (const f of userFiles) expect(readFileSync(join(dir, f), "utf8"), f).toBe(before[f]);
    expect(readFileSync(join(dir, "generated", "protocol.ts"), "utf8")).not.toBe(protocolBefore);
    expect(readFileSync(join(dir, "generated", "protocol.ts"), "utf8")).toMatch(/SPEC_VERSION = "0\.3\.0"/);
  });

  it("installed globally from the tarball (no lockfile records it): init packs itself into the project, which installs", () => {
    const prefix = join(work, "global");
    const global = sh("npm", ["install", "--global", "--prefix", prefix, tarball], work);
    expect(global.code, global.out).toBe(0);
    const init = sh(join(prefix, "bin", "a2a-codegen"), ["init", "from-global", "--framework", "node"], work);
    expect(init.code, init.out).toBe(0);
    expect(init.out).toContain(`a2a-codegen dependency: file:vendor/${basename(tarball)} (in the project: it installs anywhere)`);
    const dir = join(work, "from-global");
    expect(existsSync(join(dir, "vendor", basename(tarball)))).toBe(true);
    const install = sh("npm", ["install"], dir);
    expect(install.code, install.out).toBe(0);
    const check = sh("npm", ["run", "check"], dir);
    expect(check.code, check.out).toBe(0);
    // Two npm installs from the registry: minutes on a loaded 2-core machine (the suite's other files run meanwhile).
  }, 600_000);

  it("refuses a non-empty folder without --force, and never overwrites a file with it", () => {
    const dir = join(work, "busy");
    mkdirSync(dir);
    writeFileSync(join(dir, "src.txt"), "mine");
    const refused = sh(codegenIn(first), ["init", "busy"], work);
    expect(refused.code).toBe(2);
    expect(refused.out).toMatch(/busy: the folder is not empty; use --force/);
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "agent.ts"), "// my own agent\n");
    const forced = sh(codegenIn(first), ["init", "busy", "--force"], work);
    expect(forced.code, forced.out).toBe(0);
    expect(forced.out).toMatch(/left as they were: src\/agent\.ts/);
    expect(readFileSync(join(dir, "src", "agent.ts"), "utf8")).toBe("// my own agent\n");
  });
});
