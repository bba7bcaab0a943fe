import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { clientMethodName } from "../emit/client.js";
import { FRAMEWORKS, type Framework } from "../emit/server.js";
import { TemplateRenderer } from "../emit/templates.js";
import { CodegenError } from "../errors.js";
import { existingFolder, linkedFolder } from "../write/writer.js";
import { generateAndWrite, generate, type GenerateResult } from "../generate.js";
import { defaultVersion } from "../schema/load.js";
import { bindingsOfVersion, RUNTIMES, STORES, TEMPLATES, TRANSPORTS, type RuntimeName, type StoreEngine, type Template, type Transport } from "../options/vocabularies.js";
import { STORE_DEPENDENCIES } from "../emit/stores.js";
import { codegenSpec, PACKAGE_ROOT, packInto, vendorInto, type CodegenSpec } from "./codegen-spec.js";
import { compatFolder } from "../compat/emit.js";
import { COMPAT_TABLES } from "../compat/tables.js";
import { bundledIR } from "../load/protocol.js";

/** Where an agent scaffolded with the default store keeps its tasks (relative to the folder it starts in). */
export const DEFAULT_SQLITE_URL = "sqlite:./data/agent.db";

export interface InitOptions {
  /** The project folder (created when missing). */
  dir: string;
  spec?: string | undefined;
  framework?: Framework | undefined;
  /**
   * Where the agent runs: "node" (default), or "workers", "deno", "bun": the project gets that runtime's
   * entry on the web fetch handler (src/worker.ts + wrangler.toml, src/main.ts + deno.json, src/main.ts)
   * beside the Node server its tests use; tasks in memory, JSON-RPC and HTTP+JSON (docs/edge.md).
   */
  runtime?: RuntimeName | undefined;
  /** The agent's name (default: the folder's name). */
  name?: string | undefined;
  /** Write into a non-empty folder; existing files are still never overwritten. */
  force?: boolean | undefined;
  /**
   * The bindings the agent serves (and its card lists): default every binding the version defines —
   * JSON-RPC, HTTP+JSON and gRPC for 1.0.1 (from its proto), JSON-RPC only for versions without a proto.
   */
  transports?: readonly string[] | undefined;
  /**
   * Where the agent keeps its tasks: "sqlite" (default: the file `./data/agent.db`, created on first start,
   * or the `sqlite:` URL `A2A_STORE_URL` names; tasks survive restarts), "memory" (one process, lost at exit),
   * "postgres" or "redis" (the agent connects to `A2A_STORE_URL`, so that several instances share tasks).
   */
  store?: string | undefined;
  /** The agent: "echo" (default; no model), "ai-sdk" or "langgraph" (an LLM agent on that bridge, its model from the environment). */
  template?: string | undefined;
  /** The npm spec of the a2a-codegen devDependency (default: where the running copy came from; see codegenSpec()). */
  codegenSpec?: string | undefined;
  /**
   * An older version the agent serves too (`generate --compat`): default 0.3.0 for 1.0.1 (most clients in
   * the wild speak 0.3), none for versions without a compat mapping; `false` turns it off (--no-compat).
   */
  compat?: string | false | undefined;
  cwd?: string | undefined;
}

export interface InitResult {
  dir: string;
  /** Files written, relative to the project folder. */
  written: string[];
  /** Files that existed and were left as they were. */
  skipped: string[];
  generated: GenerateResult;
  /** The a2a-codegen devDependency written into package.json. */
  codegen: CodegenSpec | { spec: string; source: "option" };
  /** The older version the agent serves too, if any. */
  compat: string | undefined;
  /** Where the agent runs (`--runtime`). */
  runtime: RuntimeName;
}

/** The files an edge runtime adds (template → path in the project): its entry on the fetch handler and its config. */
const RUNTIME_FILES: Record<RuntimeName, ReadonlyArray<readonly [string, string]>> = {
  node: [],
  workers: [
    ["runtime/worker.ts.hbs", "src/worker.ts"],
    ["runtime/card-at.ts.hbs", "src/card-at.ts"],
    ["runtime/wrangler.toml.hbs", "wrangler.toml"],
  ],
  deno: [
    ["runtime/deno.ts.hbs", "src/main.ts"],
    ["runtime/card-at.ts.hbs", "src/card-at.ts"],
    ["runtime/deno.json.hbs", "deno.json"],
  ],
  bun: [
    ["runtime/bun.ts.hbs", "src/main.ts"],
    ["runtime/card-at.ts.hbs", "src/card-at.ts"],
  ],
};

/** What an edge runtime's project needs beside the Node ones (wrangler runs and deploys the Worker). */
const RUNTIME_DEV_DEPENDENCIES: Record<RuntimeName, Record<string, string>> = { node: {}, workers: { wrangler: "^4.0.0" }, deno: {}, bun: {} };

/** The packages the gRPC binding needs in a project (grpc-js serves and calls it; protobufjs encodes). */
const GRPC_DEPENDENCIES: Record<string, string> = { "@grpc/grpc-js": "^1.14.0", protobufjs: "^8.0.0" };

/** Where the scaffold serves each binding (the card's interfaces; server.ts rewrites the host and ports). */
const JSONRPC_URL = "http://127.0.0.1:3000/";
const REST_URL = "http://127.0.0.1:3000/rest";
const GRPC_TARGET = "127.0.0.1:50051";

/** Versions of the packages a scaffolded project depends on. */
const FRAMEWORK_DEPENDENCIES: Record<Framework, Record<string, string>> = {
  node: {},
  express: { express: "^5.1.0" },
  fastify: { fastify: "^5.4.0" },
  hono: { hono: "^4.8.0", "@hono/node-server": "^1.14.0" },
  web: {},
};
const FRAMEWORK_DEV_DEPENDENCIES: Record<Framework, Record<string, string>> = {
  node: {},
  express: { "@types/express": "^5.0.0" },
  fastify: {},
  hono: {},
  web: {},
};

/**
 * Versions pinned under package.json `overrides` so that every installed package supports the engines the
 * scaffold declares (NODE_ENGINES): light-my-request 6.8 (Fastify's, for inject) moved to cookie 2, which
 * requires Node 22. A test installs each framework's project and checks every package's engines.
 */
const FRAMEWORK_OVERRIDES: Record<Framework, Record<string, string>> = {
  node: {},
  express: {},
  fastify: { "light-my-request": "~6.6.0" },
  hono: {},
  web: {},
};

/** The Node versions the scaffold runs on: what its dependencies require together (yargs, vitest, vite; msw's prompts: 22.13 on). */
export const NODE_ENGINES = "^20.19.0 || ^22.13.0 || >=24";
/** With the SQLite store: better-sqlite3 12 (the line that builds on Node 20) declares Node 20 to 26. */
export const SQLITE_NODE_ENGINES = "^20.19.0 || ^22.13.0 || ^24.0.0 || ^25.0.0 || ^26.0.0";

/**
 * The packages an agent template adds, the versions this repository tests: the AI SDK bridge needs `ai`; the
 * LangGraph bridge @langchain/langgraph and @langchain/core, and the agent its default provider's package.
 */
const TEMPLATE_DEPENDENCIES: Record<Template, Record<string, string>> = {
  echo: {},
  "ai-sdk": { ai: "^7.0.0" },
  langgraph: { "@langchain/core": "^1.4.0", "@langchain/langgraph": "^1.7.0", "@langchain/openai": "^1.6.0" },
};

/** The files an agent template writes instead of the echo agent's (template → path in the project). */
const TEMPLATE_FILES: Record<Template, ReadonlyArray<readonly [string, string]>> = {
  echo: [],
  "ai-sdk": [
    ["ai-sdk/agent.ts.hbs", "src/agent.ts"],
    ["ai-sdk/model.ts.hbs", "src/model.ts"],
    ["ai-sdk/agent.test.ts.hbs", "test/agent.test.ts"],
  ],
  langgraph: [
    ["langgraph/agent.ts.hbs", "src/agent.ts"],
    ["langgraph/model.ts.hbs", "src/model.ts"],
    ["langgraph/agent.test.ts.hbs", "test/agent.test.ts"],
  ],
};

/** The scaffold's files: template → path in the project. */
const SCAFFOLD = [
  ["package.json.hbs", "package.json"],
  ["tsconfig.json.hbs", "tsconfig.json"],
  ["vitest.config.ts.hbs", "vitest.config.ts"],
  ["a2a-codegen.config.json.hbs", "a2a-codegen.config.json"],
  ["agent-card.json.hbs", "agent-card.json"],
  ["gitignore.hbs", ".gitignore"],
  ["src/agent.ts.hbs", "src/agent.ts"],
  ["src/server.ts.hbs", "src/server.ts"],
  ["test/agent.test.ts.hbs", "test/agent.test.ts"],
  ["README.md.hbs", "README.md"],
] as const;

/**
 * Creates an agent project that runs in two commands (`npm install`, `npm start`): the user-owned
 * files once, never overwriting one, then the generated/ folder through the project's own config.
 */
export async function init(options: InitOptions): Promise<InitResult> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir);
  const framework = options.framework ?? "fastify";
  if (!(FRAMEWORKS as readonly string[]).includes(framework)) {
    throw new CodegenError(`unknown framework "${framework}"; frameworks: ${FRAMEWORKS.join(", ")}`, { kind: "usage" });
  }
  if (existsSync(dir) && !statSync(dir).isDirectory()) {
    throw new CodegenError("is a file, not a folder", { file: relative(cwd, dir) || dir, kind: "usage" });
  }
  if (existsSync(dir) && readdirSync(dir).length > 0 && !options.force) {
    throw new CodegenError("the folder is not empty; use --force to add the project's files (existing files are never overwritten)", {
      file: relative(cwd, dir) || dir,
      kind: "usage",
    });
  }
  let codegen: InitResult["codegen"] = options.codegenSpec !== undefined ? { spec: options.codegenSpec, source: "option" } : codegenSpec();
  const { view, engine, compat, spec, template, runtime, frameworks } = await scaffoldView({ ...options, dir }, codegen);

  // The generated/ folder must be one a2a-codegen may replace: checked before the project gets a file.
  const { loadConfig } = await import("../config.js");
  const ownConfig = existsSync(join(dir, "a2a-codegen.config.json")) ? await loadConfig(dir) : undefined;
  const outDir = ownConfig?.targets[0]?.out ?? join(dir, "generated");
  if (existsSync(outDir)) existingFolder(linkedFolder(outDir), relative(cwd, outDir) || outDir);

  const templates = new TemplateRenderer();
  const written: string[] = [];
  const skipped: string[] = [];
  const display = (path: string) => relative(cwd, join(dir, path)) || dir;
  writing(display(""), () => mkdirSync(dir, { recursive: true }));
  // The project carries the a2a-codegen it depends on (vendor/): it installs on any machine, not only this one.
  const from = codegen;
  const vendored = writing(display("vendor"), () =>
    from.source === "tarball" ? vendorInto(from, dir) : from.source === "folder" && from.installable === false ? packInto(PACKAGE_ROOT, dir) : undefined,
  );
  if (vendored !== undefined && vendored !== codegen) {
    codegen = vendored;
    written.push(vendored.spec.slice("file:".length));
    view.devDependencies["a2a-codegen"] = vendored.spec;
  }
  for (const [file, path] of scaffoldFiles(template, runtime)) {
    const target = join(dir, path);
    if (existsSync(target)) {
      skipped.push(path);
      continue;
    }
    const text = templates.render(`scaffold/${file}`, view);
    writing(display(path), () => {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, text, { flag: "wx" });
    });
    written.push(path);
  }
  // The generated/ folder, exactly as `npm run generate` will write it.
  const config = await loadConfig(dir);
  const target = config?.targets[0] ?? { spec, out: join(dir, "generated"), card: join(dir, "agent-card.json"), frameworks, ...(engine ? { stores: [engine] } : {}), ...(template !== "echo" ? { bridges: [template] } : {}), cwd: dir, compat };
  const generated = await generateAndWrite(target);
  return { dir, written, skipped, generated, codegen, compat, runtime };
}

/** What the scaffold's templates are rendered with, for a project's options (`init`, and `migrate` for the scaffold's own files). */
export async function scaffoldView(options: Omit<InitOptions, "cwd" | "force">, codegen: { spec: string }) {
  const dir = options.dir;
  const runtime = options.runtime ?? "node";
  if (!(RUNTIMES as readonly string[]).includes(runtime)) throw new CodegenError(`unknown runtime "${runtime}"; runtimes: ${RUNTIMES.join(", ")}`, { kind: "usage" });
  const edge = runtime !== "node";
  // On an edge runtime the Node server (src/server.ts, what the tests start) is node:http's by default; the runtime's entry is the fetch handler's.
  const framework = options.framework ?? (edge ? "node" : "fastify");
  if (framework === "web") throw new CodegenError(`--framework web is the fetch handler an edge runtime's entry uses: scaffold it with --runtime workers, deno or bun`, { kind: "usage" });
  const frameworks: Framework[] = edge ? [framework, "web"] : [framework];
  const spec = options.spec ?? defaultVersion();
  // The IR of the version decides the card's shape, the bindings it has and the client's method names.
  const { ir } = await generate({ spec });
  // HTTP+JSON and gRPC for versions with a proto (1.0.1's source; 0.3.0's beside its JSON Schema): the card
  // lists them (1.0 supportedInterfaces; 0.3 preferredTransport + additionalInterfaces), the tests call each.
  const available = bindingsOfVersion(spec).map((binding): Transport => (binding === "HTTP+JSON" ? "rest" : binding === "GRPC" ? "grpc" : "jsonrpc"));
  // gRPC needs HTTP/2 sockets, which the fetch handler does not have.
  if (edge && options.transports?.some((t) => t.toLowerCase().split(",").includes("grpc"))) {
    throw new CodegenError(`--runtime ${runtime} serves JSON-RPC and HTTP+JSON over fetch; gRPC needs a Node server (--runtime node)`, { kind: "usage" });
  }
  const transports = chooseTransports(options.transports, edge ? available.filter((t) => t !== "grpc") : available, spec);
  // On Workers the agent's Durable Object keeps its tasks in its own storage by default (the Node server
  // beside it, what the tests start, keeps them in memory).
  const store = options.store ?? (runtime === "workers" ? "durable-object" : edge ? "memory" : "sqlite");
  if (store === "durable-object" && runtime !== "workers") {
    throw new CodegenError(`--store durable-object keeps tasks in a Cloudflare Durable Object's storage: scaffold it with --runtime workers`, { kind: "usage" });
  }
  if (edge && store !== "memory" && store !== "durable-object") {
    throw new CodegenError(
      runtime === "workers"
        ? `--runtime workers keeps tasks in the agent's Durable Object (--store durable-object, the default) or in memory (--store memory)`
        : `--runtime ${runtime} keeps tasks in memory (--store memory); docs/edge.md says how to keep them in Redis or PostgreSQL from Deno and Bun`,
      { kind: "usage" },
    );
  }
  if (store !== "memory" && !(STORES as readonly string[]).includes(store)) {
    throw new CodegenError(`unknown store "${store}"; stores: memory, ${STORES.join(", ")}`, { kind: "usage" });
  }
  /** The Worker's Durable Object keeps the tasks in its storage (the Node server keeps them in memory). */
  const durableObject = store === "durable-object";
  const engine = store === "memory" || durableObject ? undefined : (store as StoreEngine);
  const template = (options.template ?? "echo") as Template;
  if (!(TEMPLATES as readonly string[]).includes(template)) {
    throw new CodegenError(`unknown template "${template}"; templates: ${TEMPLATES.join(", ")}`, { kind: "usage" });
  }
  const compat = chooseCompat(options.compat, spec);
  const compatIr = compat === undefined ? undefined : bundledIR(compat);
  const compatMethod = (role: "send" | "stream") => {
    const method = compatIr?.methods.find((m) => m.method === compatIr.profile.methods[role]);
    return method ? clientMethodName(method) : undefined;
  };
  const name = options.name ?? basename(dir);
  const send = ir.methods.find((m) => m.method === ir.profile.methods.send);
  const stream = ir.methods.find((m) => m.method === ir.profile.methods.stream);
  const view = {
    name,
    packageName: name.toLowerCase().replace(/[^a-z0-9-._~]+/g, "-").replace(/^[-._]+/, "") || "a2a-agent",
    description: `An A2A ${spec} agent`,
    specVersion: spec,
    framework,
    /** Where the agent runs (`--runtime`) and whether it is an edge runtime (an entry on the fetch handler beside the Node server). */
    runtime,
    edge,
    workers: runtime === "workers",
    deno: runtime === "deno",
    bun: runtime === "bun",
    frameworks,
    /** The date a Worker's APIs are pinned to (wrangler.toml). */
    compatibilityDate: "2025-09-01",
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    sendMethod: send ? clientMethodName(send) : "call",
    streamMethod: stream ? clientMethodName(stream) : "stream",
    card: JSON.stringify(defaultCard(name, spec, ir.profile.objects.AgentCard?.properties ?? [], transports, template), null, 2),
    /** The agent is an LLM agent on the AI SDK bridge (`--template ai-sdk`). */
    aiSdk: template === "ai-sdk",
    /** The agent is an LLM agent on the LangGraph bridge (`--template langgraph`). */
    langgraph: template === "langgraph",
    /** The bridge of an LLM agent's template (none for the echo agent). */
    bridge: template === "echo" ? undefined : template,
    interfacesCard: ir.profile.objects.AgentCard?.properties.includes("supportedInterfaces") ?? false,
    /** A 0.3 card: `url` is the `preferredTransport`'s, `additionalInterfaces` lists the others. */
    preferredCard: ir.profile.objects.AgentCard?.properties.includes("preferredTransport") ?? false,
    transports,
    rest: transports.includes("rest"),
    grpc: transports.includes("grpc"),
    /** A binding other than JSON-RPC: the tests' clients get its transport (the card may list no JSON-RPC). */
    otherTransports: transports.some((t) => t !== "jsonrpc"),
    /** A binding the test kit's in-memory client speaks (JSON-RPC or HTTP+JSON): the tests run the agent in process too. */
    httpBinding: transports.some((t) => t !== "grpc"),
    /** The generated guards of the tests: the Task validator and the Task's context field (0.1: `sessionId`). */
    taskType: ir.core.task,
    taskContextField: ir.profile.objects[ir.core.task]?.properties.includes("contextId") ? "contextId" : "sessionId",
    /** The client transports of those bindings, as the README and the tests pass them (`restTransport, grpcTransport`), and the compat client's. */
    clientTransports: clientTransports(transports, ""),
    compatClientTransports: clientTransports(transports, "Compat"),
    /** More than one binding: the README and the tests show each. */
    multiple: transports.length > 1,
    majorMinor: spec.split(".").slice(0, 2).join("."),
    /** The older version served too, its Major.Minor and the folder of its generated files (client.ts). */
    compat,
    compatMajorMinor: compat?.split(".").slice(0, 2).join("."),
    compatFolder: compat === undefined ? undefined : compatFolder(compat),
    compatSendMethod: compatMethod("send"),
    compatStreamMethod: compatMethod("stream"),
    /** The card's protocolBinding names of the transports. */
    bindings: transports.map((t) => (t === "rest" ? "HTTP+JSON" : t.toUpperCase())),
    /** The store engine the Node server uses (none: in-memory). */
    store: engine,
    /** The Worker's Durable Object keeps its tasks in its own storage (`--store durable-object`, the default with --runtime workers). */
    durableObject,
    /** The config's `stores`: the engines generated into the project. */
    stores: durableObject ? ["durable-object"] : engine ? [engine] : [],
    storeScheme: engine === "postgres" ? "postgres://" : engine === "mysql" ? "mysql://" : engine === "redis" ? "redis://" : engine === "sqlite" ? "sqlite:" : undefined,
    /** SQLite: the file the agent keeps its tasks in when A2A_STORE_URL is not set. */
    sqlite: engine === "sqlite",
    defaultStoreUrl: engine === "sqlite" ? DEFAULT_SQLITE_URL : undefined,
    dependencies: sortKeys({
      ...FRAMEWORK_DEPENDENCIES[framework],
      ...(transports.includes("grpc") ? GRPC_DEPENDENCIES : {}),
      ...(engine ? STORE_DEPENDENCIES[engine].dependencies : {}),
      ...TEMPLATE_DEPENDENCIES[template],
    }),
    overrides: FRAMEWORK_OVERRIDES[framework],
    hasOverrides: Object.keys(FRAMEWORK_OVERRIDES[framework]).length > 0,
    nodeEngines: engine === "sqlite" ? SQLITE_NODE_ENGINES : NODE_ENGINES,
    devDependencies: sortKeys({
      "a2a-codegen": codegen.spec,
      "@types/node": "^20.19.0",
      // The test kit's MSW handlers (generated/testing/msw.ts) import it.
      msw: "^2.15.0",
      tsx: "^4.20.0",
      typescript: "^7.0.0",
      vitest: "^4.0.0",
      ...FRAMEWORK_DEV_DEPENDENCIES[framework],
      ...RUNTIME_DEV_DEPENDENCIES[runtime],
      ...(engine ? STORE_DEPENDENCIES[engine].devDependencies : {}),
    }),
  };

  return { view, ir, engine, compat, framework, frameworks, spec, template, runtime };
}

/** The scaffold files `init` writes for these options, rendered (path in the project → text). */
export async function renderScaffold(options: Omit<InitOptions, "cwd" | "force">, paths: readonly string[]): Promise<Record<string, string>> {
  const { view, template, runtime } = await scaffoldView(options, { spec: options.codegenSpec ?? "a2a-codegen" });
  const templates = new TemplateRenderer();
  const files: Record<string, string> = {};
  for (const [file, path] of scaffoldFiles(template, runtime)) if (paths.includes(path)) files[path] = templates.render(`scaffold/${file}`, view);
  return files;
}

/** The scaffold's files for an agent template: the echo agent's, with the template's own in their place and beside them, and the runtime's entry and config. */
function scaffoldFiles(template: Template, runtime: RuntimeName = "node"): ReadonlyArray<readonly [string, string]> {
  const replaced = new Map(TEMPLATE_FILES[template].map(([file, path]) => [path, file]));
  return [
    ...SCAFFOLD.map(([file, path]) => [replaced.get(path) ?? file, path] as const),
    ...TEMPLATE_FILES[template].filter(([, path]) => !SCAFFOLD.some(([, p]) => p === path)),
    ...RUNTIME_FILES[runtime],
  ];
}

/** A file system write; its failure is the documented "cannot write" error (exit 3) naming the path. */
function writing<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? "permission denied"
        : code === "ENOTDIR" || code === "EEXIST"
          ? "a parent of the path is a file, not a folder"
          : code === "ENOSPC"
            ? "no space left on the device"
            : (code ?? String(error));
    throw new CodegenError(`cannot write the project: ${why}`, { file: path, kind: "io", cause: error });
  }
}

/** The compat version: the one asked for (checked against the pairs a2a-codegen maps), else the spec's default pair's. */
function chooseCompat(asked: string | false | undefined, spec: string): string | undefined {
  if (asked === false) return undefined;
  const pairs = COMPAT_TABLES.filter((t) => t.primary === spec);
  if (asked === undefined) return pairs[0]?.compat;
  if (!pairs.some((t) => t.compat === asked)) {
    const supported = COMPAT_TABLES.map((t) => `--spec ${t.primary} --compat ${t.compat}`).join(", ");
    throw new CodegenError(`no compat mapping from ${spec} to ${asked}; supported: ${supported}`, { kind: "usage" });
  }
  return asked;
}

/**
 * The bindings asked for, in the order JSON-RPC, HTTP+JSON, gRPC (the card's order of preference); each
 * must be one the version defines. Default: all the version has.
 */
function chooseTransports(asked: readonly string[] | undefined, available: readonly Transport[], spec: string): Transport[] {
  if (asked === undefined) return [...available];
  const names = asked.flatMap((t) => t.split(",")).map((t) => t.trim().toLowerCase()).filter((t) => t !== "");
  for (const name of names) {
    if (!(TRANSPORTS as readonly string[]).includes(name)) throw new CodegenError(`unknown transport "${name}"; transports: ${TRANSPORTS.join(", ")}`, { kind: "usage" });
    if (!(available as readonly string[]).includes(name)) {
      throw new CodegenError(`A2A ${spec} has no ${name === "rest" ? "HTTP+JSON" : "gRPC"} binding (only 0.3.0 and 1.0.1 have a proto); transports of ${spec}: ${available.join(", ")}`, { kind: "usage" });
    }
  }
  if (names.length === 0) throw new CodegenError(`--transports names no binding; transports of ${spec}: ${available.join(", ")}`, { kind: "usage" });
  return TRANSPORTS.filter((t) => names.includes(t));
}

function defaultCard(name: string, spec: string, properties: readonly string[], transports: readonly Transport[], template: Template): Record<string, unknown> {
  const card: Record<string, unknown> = {};
  const protocolVersion = spec.split(".").slice(0, 2).join(".");
  const interfaces = transports.map((t) =>
    t === "grpc" ? { url: GRPC_TARGET, protocolBinding: "GRPC", protocolVersion } : t === "rest" ? { url: REST_URL, protocolBinding: "HTTP+JSON", protocolVersion } : { url: JSONRPC_URL, protocolBinding: "JSONRPC", protocolVersion },
  );
  // 0.3: the first binding is `url` + `preferredTransport`; `additionalInterfaces` lists them all, the main one
  // included (specification-0.3.0.md §5.6). Before 0.3: `url`, JSON-RPC.
  const main = interfaces[0] ?? { url: JSONRPC_URL, protocolBinding: "JSONRPC" };
  if (properties.includes("protocolVersion")) card.protocolVersion = spec;
  Object.assign(card, {
    name,
    description: template !== "echo" ? "An assistant on a language model: it streams its answers, rolls dice, and asks when it needs to know more." : "An agent that echoes, streams your words back, and asks for your name.",
    ...(properties.includes("supportedInterfaces") ? { supportedInterfaces: interfaces } : { url: main.url }),
    version: "0.1.0",
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: template !== "echo" ? [
      {
        id: "assistant",
        name: "Assistant",
        description: "Answers questions in a conversation; rolls dice with its rollDice tool.",
        tags: ["assistant", "example"],
        examples: ["hello", "roll two dice", "let us play a game"],
      },
    ] : [
      {
        id: "echo",
        name: "Echo",
        description: "Echoes a message; 'stream …' streams the words back; 'name' asks for your name.",
        tags: ["echo", "example"],
        examples: ["hello", "stream one two three", "name"],
      },
    ],
  });
  if (properties.includes("preferredTransport")) card.preferredTransport = main.protocolBinding;
  if (properties.includes("additionalInterfaces") && interfaces.length > 1) card.additionalInterfaces = interfaces.map((i) => ({ url: i.url, transport: i.protocolBinding }));
  return card;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The generated client's transport names for the bindings other than JSON-RPC, comma-separated (`suffix`: the compat client's import aliases). */
function clientTransports(transports: readonly Transport[], suffix: string): string {
  return transports
    .filter((t) => t !== "jsonrpc")
    .sort((a, b) => (a === "rest" ? -1 : b === "rest" ? 1 : 0))
    .map((t) => `${t}Transport${suffix}`)
    .join(", ");
}
