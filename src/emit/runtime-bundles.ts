/**
 * Which runtime files reach a generated output, declared once per feature: the files (or folders) of
 * `src/runtime/` each feature brings and when it applies. generate.ts copies what this module answers,
 * verbatim under `runtime/` with the output's header; a test checks that every runtime file belongs to
 * exactly one bundle. Files of a prunable bundle are left out again when nothing of the output imports
 * them (emit/runtime-files.ts: a version without an HTTP+JSON binding has no use for the client's REST
 * transport). A client-only output (--client-only) takes the shared part and the client, never the server
 * core, and every file of it is prunable: it holds exactly what client.ts (and client-validation.ts) import.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Bridge, Framework } from "../options/vocabularies.js";
import type { StoreEngine } from "../options/vocabularies.js";

/** The runtime sources (works from src/ and dist/). */
export const RUNTIME_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/runtime");

/** What decides which bundles an output takes. */
export interface RuntimeChoice {
  readonly specVersion: string;
  readonly compat?: string | undefined;
  readonly cardSignatures: boolean;
  readonly transports: readonly string[];
  readonly stores: readonly StoreEngine[];
  readonly frameworks: readonly Framework[];
  readonly bridges?: readonly Bridge[];
  /** The test kit (--testing): its in-memory transport runs the server core through the web adapter. */
  readonly testing?: boolean;
  /** OpenTelemetry (--telemetry): the only files that import @opentelemetry/api. */
  readonly telemetry?: boolean;
  /** Only the client (--client-only): no server core, and only the runtime files the client imports. */
  readonly clientOnly?: boolean;
}

export interface RuntimeBundle {
  /** What the bundle is for, as the docs name it. */
  readonly feature: string;
  /** Paths under src/runtime/: a file (`json.ts`) or a folder (`tasks/`: every .ts file in it). */
  readonly brings: readonly string[];
  readonly when: (choice: RuntimeChoice) => boolean;
  /** Its files are left out when no other file of the output imports them (see the module comment). */
  readonly prunable: boolean;
}

const always = (): boolean => true;
const ENGINE_FILES = ["stores/follower.ts", "stores/patch-policy.ts"];

export const RUNTIME_BUNDLES: readonly RuntimeBundle[] = [
  {
    feature: "shared: the ground floor of the client and the server: JSON, the A2A error, the protocol profile and shapes, validation, the wire formats",
    brings: [
      "a2a-error.ts", "event-ids.ts", "json.ts", "message-shapes.ts", "profile.ts", "protocol-shapes.ts", "random-ids.ts", "validation.ts",
      "wire/http-routes.ts", "wire/jsonrpc.ts", "wire/proto-defaults.ts", "wire/proto-json-input.ts", "wire/shapes.ts", "wire/sse.ts",
    ],
    when: always,
    prunable: true,
  },
  {
    feature: "server core: calls, the store contract and memory engine, the task runtime, the service and the HTTP bindings (not in a client-only output)",
    brings: [
      "call.ts", "wire/issue-pointers.ts",
      "stores/contract.ts", "stores/errors.ts", "stores/event-texts.ts", "stores/memory.ts", "stores/memory-event-log.ts", "stores/memory-leases.ts",
      "stores/memory-task-store.ts", "stores/oldest-keys.ts", "stores/paging.ts", "stores/task-json.ts", "stores/task-patch.ts",
      "tasks/", "service/", "http/", "card/cache-headers.ts", "telemetry-hooks.ts",
    ],
    when: (c) => c.clientOnly !== true,
    prunable: true,
  },
  { feature: "client", brings: ["client/"], when: always, prunable: true },
  { feature: "node:http adapter (node, Express, Fastify; Hono on @hono/node-server answers with it)", brings: ["adapters/node.ts"], when: (c) => c.frameworks.some((f) => f !== "web") || c.testing === true, prunable: true },
  { feature: "web-standard fetch handler (web, Hono; no node: import on its path)", brings: ["adapters/web.ts"], when: (c) => c.frameworks.includes("hono") || c.frameworks.includes("web") || c.testing === true, prunable: true },
  { feature: "Cloudflare Workers: the agent in a Durable Object (web)", brings: ["adapters/workers.ts"], when: (c) => c.frameworks.includes("web"), prunable: true },
  // The translation between 0.3.0's proto shapes and its JSON-RPC shapes (its HTTP+JSON and gRPC bindings),
  // in 0.3.0 outputs and in outputs whose compat 0.3.0 folder shares this runtime.
  { feature: "0.3.0 wire shapes", brings: ["wire/shapes-0.3.0.ts"], when: (c) => c.specVersion === "0.3.0" || c.compat === "0.3.0", prunable: false },
  { feature: "agent card signatures (--card-signatures; needs jose and canonicalize)", brings: ["card/signature.ts"], when: (c) => c.cardSignatures, prunable: false },
  { feature: "compat: serving a second version (--compat)", brings: ["compat/"], when: (c) => c.compat !== undefined, prunable: false },
  { feature: "gRPC binding (--transports grpc)", brings: ["grpc/"], when: (c) => c.transports.includes("grpc"), prunable: false },
  { feature: "OpenTelemetry traces and metrics (--telemetry; needs @opentelemetry/api)", brings: ["telemetry/"], when: (c) => c.telemetry === true, prunable: false },
  { feature: "test kit (--testing): the in-memory transport and the scriptable mock agent", brings: ["testing/"], when: (c) => c.testing === true, prunable: false },
  { feature: "PostgreSQL store (--store postgres)", brings: ["stores/postgres.ts", "stores/postgres/", ...ENGINE_FILES], when: (c) => c.stores.includes("postgres"), prunable: false },
  { feature: "LLM bridges: the conversation as turns, a remote agent's streamed answer (any --bridge)", brings: ["bridges/conversation.ts", "bridges/remote-agent.ts"], when: (c) => (c.bridges ?? []).length > 0, prunable: false },
  { feature: "Vercel AI SDK bridge (--bridge ai-sdk; needs ai)", brings: ["bridges/ai-sdk.ts"], when: (c) => (c.bridges ?? []).includes("ai-sdk"), prunable: false },
  { feature: "LangGraph.js bridge (--bridge langgraph; needs @langchain/langgraph and @langchain/core)", brings: ["bridges/langgraph.ts"], when: (c) => (c.bridges ?? []).includes("langgraph"), prunable: false },
  { feature: "MySQL store (--store mysql; MySQL 8 or MariaDB 10.6+)", brings: ["stores/mysql.ts", "stores/mysql/", ...ENGINE_FILES], when: (c) => c.stores.includes("mysql"), prunable: false },
  { feature: "Redis store (--store redis)", brings: ["stores/redis.ts", "stores/redis/", ...ENGINE_FILES], when: (c) => c.stores.includes("redis"), prunable: false },
  { feature: "SQLite store (--store sqlite)", brings: ["stores/sqlite.ts", "stores/sqlite-database.ts"], when: (c) => c.stores.includes("sqlite"), prunable: false },
  // The SQL of the SQLite family, apart from its driver: shared by the file store and the Durable Object store.
  { feature: "SQLite-family store (--store sqlite or durable-object): the SQL apart from its driver", brings: ["stores/sql-database.ts", "stores/sql-store.ts", "stores/sql-tasks.ts", "stores/sql-events.ts", "stores/sqlite-queues.ts", ...ENGINE_FILES], when: (c) => c.stores.includes("sqlite") || c.stores.includes("durable-object"), prunable: false },
  { feature: "Durable Object store (--store durable-object; Cloudflare Workers, the object's own SQLite storage)", brings: ["stores/durable-object.ts"], when: (c) => c.stores.includes("durable-object"), prunable: false },
];

/** The .ts files an entry of `brings` names, as paths under src/runtime/. */
export function bundleEntryFiles(entry: string): string[] {
  if (!entry.endsWith("/")) return [entry];
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(RUNTIME_DIR, rel)).sort()) {
      const path = rel + name;
      if (statSync(join(RUNTIME_DIR, path)).isDirectory()) walk(`${path}/`);
      else if (name.endsWith(".ts")) out.push(path);
    }
  };
  walk(entry);
  return out;
}

/**
 * The runtime files of an output, by output path (`runtime/<path>`), with the output's header, and the
 * set of those a prune may leave out.
 */
export function runtimeFiles(choice: RuntimeChoice, header: string): { files: Record<string, string>; prunable: Set<string> } {
  const files: Record<string, string> = {};
  const prunable = new Set<string>();
  for (const bundle of RUNTIME_BUNDLES.filter((b) => b.when(choice))) {
    for (const path of bundle.brings.flatMap(bundleEntryFiles)) {
      const out = `runtime/${path}`;
      files[out] = `${header}\n${readFileSync(join(RUNTIME_DIR, path), "utf8")}`;
      if (bundle.prunable || choice.clientOnly === true) prunable.add(out);
    }
  }
  return { files, prunable };
}
