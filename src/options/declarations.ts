/**
 * Every option of the command line and of the config file, declared once.
 *
 * A declaration says the option's flag and other spellings, its type, whether it takes a list, its allowed
 * values, its help text, its config key (the key of GenerateOptions too) and whether it is part of the
 * up-to-date fingerprint. From these: the yargs definitions (cli.ts, through ./yargs.ts), the light parser
 * of a plain `generate` line (cli-up-to-date.ts), config validation (config.ts), the up-to-date fingerprint
 * (write/up-to-date.ts) and the option tables of docs/cli.md and docs/config.md (./docs.ts). A new option
 * is added here, and shows up in all of them; test/repo/options.test.ts lists each option's presence.
 *
 * Light on purpose (the CLI reads it before deciding to load yargs): leaves and node built-ins only.
 */
import { CodegenError } from "../errors.js";
import { closestName } from "../closest-name.js";
import { bundledVersions, defaultVersion } from "../schema/load.js";
import { BRIDGES, FRAMEWORKS, RUNTIMES, STORES, TEMPLATES, TRANSPORTS } from "./vocabularies.js";

/** What an option takes, and what the docs and messages call it. */
export interface OptionValues {
  /** The allowed values (read when needed: the bundled versions are a folder listing). */
  readonly allowed: () => readonly string[];
  /** One value, in messages: `unknown framework "koa"`. */
  readonly noun: string;
  /** The list of allowed values, in messages: `frameworks: node, express, ...`. */
  readonly nouns: string;
}

export interface OptionDeclaration {
  /** The flag, kebab-case, without dashes: `card-signatures` is `--card-signatures`. */
  readonly flag: string;
  /** Other spellings of the flag: the plural or singular of a list flag, a one-letter short form. */
  readonly aliases?: readonly string[];
  readonly type: "string" | "boolean";
  /** Takes several values: comma- or space-separated, or the flag repeated (see listValues). */
  readonly list?: boolean;
  /** The values it may take; anything else is refused, naming them, with the closest as a suggestion. */
  readonly values?: OptionValues;
  /** The placeholder of its value in synopses and tables: `V`, `FILE`, `DIR`, `LIST`. */
  readonly placeholder?: string;
  readonly help: string;
  /** The default yargs gives it (shown in --help); most defaults are decided later and told in `help`. */
  readonly default?: boolean | string;
  /** Its key in the config file and in GenerateOptions; absent for flags of the command line only. */
  readonly config?: string;
  /** A path: resolved against the working folder (or the config file's folder). */
  readonly path?: boolean;
  /** Part of the up-to-date fingerprint (write/up-to-date.ts): it decides the output. */
  readonly fingerprint?: boolean;
  /** A positional argument of the command rather than a flag. */
  readonly positional?: boolean;
  /** Must be given. */
  readonly required?: boolean;
  /** Has a `--no-<flag>` form, told in the docs (yargs reads it for every flag). */
  readonly negatable?: boolean;
}

/** A command of the CLI: its yargs command string, summary, options, and the rules between them. */
export interface CommandDeclaration {
  /** The yargs command: `init <dir>`, `diff [a] [b]`. */
  readonly command: string;
  /** Other names of the command (`$0`: the default command). */
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly options: readonly OptionDeclaration[];
  /** Pairs of flags that cannot be given together. */
  readonly conflicts?: ReadonlyArray<readonly [string, string | readonly string[]]>;
  readonly examples: ReadonlyArray<readonly [string, string]>;
}

/** What the tool does, for `--help` and the docs. */
export const TOOL_SUMMARY =
  "Generates TypeScript for the A2A protocol from a version's JSON Schema or proto: models, validators, a typed client, " +
  "servers (node:http, Express, Fastify, Hono over JSON-RPC, HTTP+JSON and gRPC) and the task runtime they run on.";

const VERSIONS: OptionValues = { allowed: bundledVersions, noun: "spec version", nouns: "bundled versions" };
const FRAMEWORK_VALUES: OptionValues = { allowed: () => FRAMEWORKS, noun: "framework", nouns: "frameworks" };
const TRANSPORT_VALUES: OptionValues = { allowed: () => TRANSPORTS, noun: "transport", nouns: "transports" };
const STORE_VALUES: OptionValues = { allowed: () => STORES, noun: "store", nouns: "stores" };
const BRIDGE_VALUES: OptionValues = { allowed: () => BRIDGES, noun: "bridge", nouns: "bridges" };

/** The options of `generate`, in the order --help and the docs list them. */
export const GENERATE_OPTIONS = [
  { flag: "spec", type: "string", values: VERSIONS, placeholder: "V", config: "spec", fingerprint: true, help: `bundled spec version (default: the newest, ${defaultVersion()})` },
  { flag: "schema", type: "string", placeholder: "FILE", config: "schema", path: true, fingerprint: true, help: "an A2A JSON Schema or .proto file instead of a bundled version" },
  { flag: "overlay", type: "string", placeholder: "FILE", config: "overlay", path: true, fingerprint: true, help: "the overlay of facts for --schema (default: <schema>.overlay.json, else the closest bundled version's)" },
  { flag: "out", type: "string", placeholder: "DIR", config: "out", path: true, fingerprint: true, help: "output folder (default: generated/a2a-<version>; with --all, the parent folder)" },
  { flag: "templates", type: "string", placeholder: "DIR", config: "templates", path: true, fingerprint: true, help: "a folder of templates that override the bundled ones by path" },
  { flag: "card", type: "string", placeholder: "FILE", config: "card", path: true, fingerprint: true, help: "an agent card JSON file: validated, emitted as card.ts" },
  {
    flag: "framework",
    aliases: ["frameworks"],
    type: "string",
    list: true,
    values: FRAMEWORK_VALUES,
    placeholder: "LIST",
    config: "frameworks",
    fingerprint: true,
    help: "server adapters to generate: node, express, fastify, hono, web (a fetch handler for Workers, Deno, Bun: docs/edge.md) (default: node, plus the frameworks of the nearest package.json)",
  },
  {
    flag: "transports",
    aliases: ["transport"],
    type: "string",
    list: true,
    values: TRANSPORT_VALUES,
    placeholder: "LIST",
    config: "transports",
    fingerprint: true,
    help: "protocol bindings: jsonrpc, rest, grpc (default: jsonrpc; grpc needs @grpc/grpc-js)",
  },
  {
    flag: "store",
    aliases: ["stores"],
    type: "string",
    list: true,
    values: STORE_VALUES,
    placeholder: "LIST",
    config: "stores",
    fingerprint: true,
    help: "store engines to add: postgres, mysql, redis, sqlite, durable-object (a Cloudflare Durable Object's storage) (default: in-memory only)",
  },
  {
    flag: "compat",
    type: "string",
    values: VERSIONS,
    placeholder: "V",
    config: "compat",
    fingerprint: true,
    help: "an older bundled version to serve too (e.g. 0.3.0 with --spec 1.0.1): its files in compat/a2a-<version>/ and the mapping",
  },
  {
    flag: "bridge",
    aliases: ["bridges"],
    type: "string",
    list: true,
    values: BRIDGE_VALUES,
    placeholder: "LIST",
    config: "bridges",
    fingerprint: true,
    help: "LLM framework bridges to add: ai-sdk (runtime/bridges/ai-sdk.ts; needs the `ai` package), langgraph (runtime/bridges/langgraph.ts; needs @langchain/langgraph and @langchain/core) (default: none)",
  },
  { flag: "card-signatures", type: "boolean", config: "cardSignatures", fingerprint: true, help: "also emit runtime/card/signature.ts: sign and verify agent cards (needs jose and canonicalize)" },
  { flag: "testing", type: "boolean", config: "testing", fingerprint: true, help: "also emit the test kit in testing/: an in-memory transport, a scriptable mock agent, MSW handlers (needs msw) and fixtures" },
  { flag: "telemetry", type: "boolean", config: "telemetry", fingerprint: true, help: "also emit OpenTelemetry traces and metrics in the server and client (runtime/telemetry/; needs @opentelemetry/api)" },
  {
    flag: "client-only",
    type: "boolean",
    config: "clientOnly",
    fingerprint: true,
    help: "only the client, for a browser, an edge runtime or a project that calls agents: models, client.ts and the runtime files it imports (no server, task runtime, push or stores); type-checks with lib DOM and no @types/node; schema checks opt-in (client-validation.ts)",
  },
  { flag: "config", type: "string", placeholder: "FILE", help: "config file (default: a2a-codegen.config.json|.mjs|.js in the working folder)" },
  { flag: "check", type: "boolean", default: false, help: "write nothing; exit 1 and list the files that are stale" },
  { flag: "force", type: "boolean", help: "generate (or check) even when the inputs are those the folder was made from" },
  { flag: "all", type: "boolean", help: "every bundled spec version, into <out>/a2a-<version>" },
  { flag: "watch", aliases: ["w"], type: "boolean", default: false, help: "regenerate when the schema, config, card or a template changes" },
  { flag: "verbose", aliases: ["v"], type: "boolean", default: false, help: "per-phase timings; stack traces on errors" },
  { flag: "quiet", aliases: ["q"], type: "boolean", default: false, help: "print errors only" },
  { flag: "allow-type-errors", type: "boolean", default: false, help: "exit 0 when a spec change leaves type errors in your code (default: exit 4)" },
] as const satisfies readonly OptionDeclaration[];

/** The options of `init`. */
export const INIT_OPTIONS = [
  { flag: "dir", positional: true, required: true, type: "string", placeholder: "DIR", help: "the project folder" },
  { flag: "spec", type: "string", values: VERSIONS, placeholder: "V", help: `spec version (default: the newest, ${defaultVersion()})` },
  { flag: "framework", type: "string", values: FRAMEWORK_VALUES, placeholder: "F", help: "the server framework: fastify, express, hono, node (default: fastify; web, the fetch handler, with --runtime workers, deno or bun)" },
  {
    flag: "runtime",
    type: "string",
    values: { allowed: () => RUNTIMES, noun: "runtime", nouns: "runtimes" },
    placeholder: "R",
    default: "node",
    help: "where the agent runs: node, workers (Cloudflare Workers: wrangler.toml, the agent in a Durable Object), deno (deno.json) or bun; docs/edge.md",
  },
  { flag: "name", type: "string", placeholder: "N", help: "the agent's name (default: the folder's name)" },
  {
    flag: "template",
    type: "string",
    values: { allowed: () => TEMPLATES, noun: "template", nouns: "templates" },
    placeholder: "T",
    default: "echo",
    help: "the agent: echo (no model), ai-sdk (an LLM agent on the Vercel AI SDK: a tool, streaming, multi-turn; the model from AI_MODEL), or langgraph (the same on a LangGraph.js graph; the model from LANGGRAPH_MODEL)",
  },
  {
    flag: "transports",
    aliases: ["transport"],
    type: "string",
    list: true,
    values: TRANSPORT_VALUES,
    placeholder: "LIST",
    help: "bindings the agent serves: jsonrpc, rest, grpc (default: every one the version has; 0.3.0 and 1.0.1: all three)",
  },
  {
    flag: "store",
    type: "string",
    values: { allowed: () => ["memory", ...STORES], noun: "store", nouns: "stores" },
    placeholder: "S",
    help: "where tasks are kept: sqlite (a file, ./data/agent.db, kept across restarts; the default on node), durable-object (the agent's Durable Object storage, kept across restarts; the default with --runtime workers), memory (one process; the default with --runtime deno or bun), or postgres, mysql, redis read from A2A_STORE_URL (several instances)",
  },
  {
    flag: "compat",
    type: "string",
    values: VERSIONS,
    placeholder: "V",
    negatable: true,
    help: "an older version the agent serves too (default: 0.3.0 for 1.0.1); --no-compat serves the spec version only",
  },
  { flag: "force", type: "boolean", default: false, help: "write into a non-empty folder (never overwrites a file)" },
  {
    flag: "codegen-spec",
    type: "string",
    placeholder: "SPEC",
    help: "the npm spec of the project's a2a-codegen dependency (default: where this copy came from: the registry range, else its tarball or folder as file:)",
  },
] as const satisfies readonly OptionDeclaration[];

/** `--json`, of `diff` and `versions`. */
const JSON_OUTPUT = { flag: "json", type: "boolean", default: false, help: "machine-readable output" } as const satisfies OptionDeclaration;

export const DIFF_OPTIONS = [
  { flag: "a", positional: true, type: "string", placeholder: "V or FILE", help: "the older version or schema file" },
  { flag: "b", positional: true, type: "string", placeholder: "V or FILE", help: "the newer version or schema file" },
  JSON_OUTPUT,
  { flag: "markdown", type: "boolean", default: false, help: "Markdown output" },
  { flag: "all", type: "boolean", default: false, help: "every consecutive pair of bundled versions, as Markdown" },
  { flag: "out", type: "string", placeholder: "FILE", help: "write the report to this file instead of standard output" },
  { flag: "check", type: "boolean", default: false, help: "with --all --out: exit 1 if the file is stale" },
] as const satisfies readonly OptionDeclaration[];

export const CARD_OPTIONS = [
  { flag: "file", positional: true, type: "string", placeholder: "FILE", help: "the agent card file (default: the config's card, else agent-card.json)" },
  { flag: "from", type: "string", placeholder: "V", help: "the version the card is written for (default: the bundled version it fits best)" },
  { flag: "to", type: "string", placeholder: "V", help: "the version to convert to (default: the config's spec, else the newest bundled)" },
  { flag: "out", type: "string", placeholder: "FILE", help: "write the converted card here instead of over the file" },
  { flag: "stdout", type: "boolean", default: false, help: "print the converted card; write nothing" },
] as const satisfies readonly OptionDeclaration[];

export const MIGRATE_OPTIONS = [
  { flag: "paths", positional: true, type: "string", placeholder: "PATH…", help: "files or folders to rewrite (default: the project folder); nothing outside them is written" },
  { flag: "from", type: "string", placeholder: "V", help: "the version the code is written for (default: the project's generated folder's)" },
  { flag: "to", type: "string", placeholder: "V", help: "the version to move it to (default: the newest bundled)" },
  { flag: "dry-run", type: "boolean", default: false, help: "print a unified diff of the changes; write nothing" },
  { flag: "store", type: "string", placeholder: "URL", help: "also rewrite the tasks and push configs of this durable store (postgres://…, mysql://…, redis://…) in the new version's shapes" },
] as const satisfies readonly OptionDeclaration[];

export const SCHEMA_OPTIONS = [
  { flag: "from-proto", type: "string", placeholder: "FILE", required: true, help: "the A2A .proto file" },
  { flag: "out", type: "string", placeholder: "FILE", help: "the schema file to write (default: standard output)" },
  { flag: "overlay-out", type: "string", placeholder: "FILE", help: "also write the version facts (overlay) here" },
] as const satisfies readonly OptionDeclaration[];

export const VERSIONS_OPTIONS = [JSON_OUTPUT] as const satisfies readonly OptionDeclaration[];

const LEVEL_VALUES: OptionValues = { allowed: () => ["MUST", "SHOULD"], noun: "level", nouns: "levels" };
const BINDING_VALUES: OptionValues = { allowed: () => ["jsonrpc", "rest", "grpc"], noun: "binding", nouns: "bindings" };
export const VERIFY_OPTIONS = [
  { flag: "url", positional: true, type: "string", placeholder: "URL", required: true, help: "the agent's base URL (its card is at /.well-known/agent-card.json below it)" },
  { flag: "level", type: "string", list: true, values: LEVEL_VALUES, placeholder: "LIST", help: "only checks of these levels: MUST, SHOULD (default: both)" },
  { flag: "binding", type: "string", list: true, values: BINDING_VALUES, placeholder: "LIST", help: "only these bindings of the card: jsonrpc, rest, grpc (default: every one it lists)" },
  {
    flag: "auth",
    type: "string",
    placeholder: "CREDENTIAL",
    help: "a credential sent with every call: a token or key (sent as the card's security scheme says), `Header: value`, or env:NAME; give the flag twice to check owner scoping (credential B must not see credential A's tasks)",
  },
  JSON_OUTPUT,
  { flag: "junit", type: "string", placeholder: "FILE", help: "also write the results as JUnit XML to FILE" },
  { flag: "timeout", type: "string", placeholder: "MS", help: "how long each answer may take, a stream's end included, in milliseconds (default 10000)" },
] as const satisfies readonly OptionDeclaration[];

/** The options of `store`. */
export const STORE_OPTIONS = [
  {
    flag: "action",
    positional: true,
    required: true,
    type: "string",
    values: { allowed: () => ["migrate", "status"], noun: "action", nouns: "actions" },
    placeholder: "ACTION",
    help: "migrate: apply the migrations the database lacks (under the engine's lock); status: its schema version and what is pending",
  },
  { flag: "url", type: "string", required: true, placeholder: "URL", help: "the store's URL: sqlite:<path>, file:<path>, postgres://…, mysql://…, redis://…" },
  { flag: "sql", type: "boolean", help: "print the SQL of the pending migrations instead of applying them (SQLite, PostgreSQL, MySQL; changes nothing)" },
] as const satisfies readonly OptionDeclaration[];

/** Every command, in the order --help lists them. */
export const COMMANDS = {
  generate: {
    command: "generate",
    aliases: ["$0"],
    summary: "generate the code for one spec version (or every bundled one with --all)",
    options: GENERATE_OPTIONS,
    conflicts: [
      ["spec", "schema"],
      ["all", ["spec", "schema", "compat"]],
    ],
    examples: [
      ["$0 generate", "the newest bundled version into generated/a2a-<version>"],
      ["$0 generate --spec 0.2.5 --out src/a2a", "a given version into a given folder"],
      ["$0 generate --schema my-a2a.json --out src/a2a", "a schema file of your own"],
      ["$0 generate --framework fastify,hono", "a list flag takes commas, spaces or the flag repeated"],
      ["$0 generate --check", "in CI: fail if the committed output is stale"],
      ["$0 generate --all --out generated", "every bundled version"],
    ],
  },
  init: {
    command: "init <dir>",
    summary: "scaffold an agent project that runs with `npm install && npm start`",
    options: INIT_OPTIONS,
    examples: [
      ["$0 init my-agent", "a Fastify agent for the newest spec version"],
      ["$0 init my-agent --framework express --spec 0.2.5", "an Express agent for A2A 0.2.5"],
      ["$0 init my-agent --transports jsonrpc,rest", "JSON-RPC and HTTP+JSON, no gRPC"],
      ["$0 init my-agent --store postgres", "tasks in PostgreSQL (A2A_STORE_URL): run as many instances as you like"],
      ["$0 init my-agent --template ai-sdk", "an LLM agent on the Vercel AI SDK (AI_MODEL, AI_GATEWAY_API_KEY)"],
      ["$0 init my-agent --template langgraph", "an LLM agent on a LangGraph.js graph (LANGGRAPH_MODEL, OPENAI_API_KEY)"],
      ["$0 init my-agent --store memory", "tasks in the process only (lost at exit), no database"],
      ["$0 init my-agent --no-compat", "an A2A 1.0.1 agent that does not also serve 0.3 clients"],
    ],
  },
  diff: {
    command: "diff [a] [b]",
    summary: "what changed between two spec versions (bundled versions or schema files)",
    options: DIFF_OPTIONS,
    examples: [
      ["$0 diff 0.2.6 0.3.0", "the changes from A2A 0.2.6 to 0.3.0"],
      ["$0 diff 0.3.0 my-a2a.json --json", "your schema against the bundled 0.3.0, as JSON"],
    ],
  },
  card: {
    command: "card [file]",
    summary: "convert an agent card to another spec version (in place; written only when the result is a valid card)",
    options: CARD_OPTIONS,
    conflicts: [["out", "stdout"]],
    examples: [["$0 card --from 0.3.0 --to 1.0.1 agent-card.json", "a 0.3.0 card in the shape of 1.0.1 (supportedInterfaces, securityRequirements, ...)"]],
  },
  migrate: {
    command: "migrate [paths..]",
    summary: "rewrite your code from one spec version's generated code to another's (and the scaffold's files, the config, the card)",
    options: MIGRATE_OPTIONS,
    examples: [["$0 migrate --from 0.3.0 --to 1.0.1", "an agent generated for 0.3.0 to 1.0.1, in place"]],
  },
  schema: {
    command: "schema",
    summary: "write the JSON Schema a proto derives (A2A 1.0 on: the proto is normative)",
    options: SCHEMA_OPTIONS,
    examples: [["$0 schema --from-proto a2a.proto --out a2a-1.0.1.json", "the JSON Schema of A2A 1.0.1"]],
  },
  verify: {
    command: "verify <url>",
    summary: "check a live A2A 1.0 or 0.3 agent against the specification: its card, then each binding it lists (exit 1 on a MUST failure)",
    options: VERIFY_OPTIONS,
    examples: [
      ["$0 verify http://localhost:3000", "every check, as a table"],
      ["$0 verify https://agent.example.com --level MUST --junit verify.xml", "in CI: MUST checks only, JUnit XML for the dashboard"],
      ["$0 verify https://agent.example.com --auth env:TOKEN_A --auth env:TOKEN_B", "with two callers' tokens: also checks that one cannot see the other's tasks"],
    ],
  },
  store: {
    command: "store <action>",
    summary: "the schema of a store's database: its version, and the migrations it lacks applied or printed",
    options: STORE_OPTIONS,
    examples: [
      ["$0 store status --url sqlite:./data/agent.db", "the schema version of an agent's SQLite file and what is pending"],
      ["$0 store migrate --url sqlite:./data/agent.db", "apply the pending migrations (the agent also does when it starts)"],
      ["$0 store migrate --url sqlite:./data/agent.db --sql", "print them as one SQL transaction instead, changing nothing"],
      ["$0 store status --url mysql://user:pass@db:3306/agents", "the schema version of a MySQL (or MariaDB) store and what is pending"],
    ],
  },
  versions: {
    command: "versions",
    summary: "list the bundled spec versions and the bindings of each",
    options: VERSIONS_OPTIONS,
    examples: [],
  },
} as const satisfies Record<string, CommandDeclaration>;

/** The config keys: the generate options that have one, and `targets`. */
export const CONFIG_OPTIONS = GENERATE_OPTIONS.filter((o): o is Extract<(typeof GENERATE_OPTIONS)[number], { config: string }> => "config" in o);
export type ConfigKey = (typeof CONFIG_OPTIONS)[number]["config"];
/** Keys a config file may hold besides the options: several targets, and the two JSON Schema annotations. */
export const CONFIG_STRUCTURE_KEYS = ["targets", "$schema", "$comment"] as const;

type Declared = (typeof GENERATE_OPTIONS)[number];
type Fingerprinted = Extract<Declared, { fingerprint: true }>;
/** The TypeScript type of an option's value, as the config and GenerateOptions hold it. */
type ValueOf<D> = D extends { type: "boolean" } ? boolean : D extends { list: true } ? readonly string[] : string;

/**
 * The options that decide a target's output (write/up-to-date.ts fingerprints them), with plain types, plus
 * `cwd`: derived from the declarations.
 */
export type TargetInputs = { [D in Fingerprinted as D["config"]]?: ValueOf<D> | undefined } & { cwd?: string | undefined };

/** One target of the config file, as written in it (paths not yet resolved): derived from the declarations. */
export type ConfigTarget = { [D in (typeof CONFIG_OPTIONS)[number] as D["config"]]?: D extends { type: "boolean" } ? boolean : D extends { list: true } ? string[] : string };

/** `true` when two sets of keys are the same; else what each lacks (a compile-time check of agreement). */
export type Agree<A, B> = [Exclude<A, B>, Exclude<B, A>] extends [never, never] ? true : { missing: Exclude<A, B>; undeclared: Exclude<B, A> };
const CONFIG_KEYS_FINGERPRINTED: Agree<ConfigKey, Fingerprinted["config"]> = true;
void CONFIG_KEYS_FINGERPRINTED;

/** The declaration of `--flag` (or one of its spellings) among `options`. */
export function declarationOf(options: readonly OptionDeclaration[], flag: string): OptionDeclaration | undefined {
  return options.find((o) => o.flag === flag || o.aliases?.includes(flag) === true);
}

/**
 * The one rule of every list option: each value given (the flag repeated, or several after it) may hold
 * several names separated by commas or spaces; names are trimmed, lower-cased, empty ones dropped, and
 * each kept once, in the order given. `--framework node,express`, `--frameworks node express` and
 * `--framework node --framework express` are the same.
 */
export function listValues(given: readonly string[]): string[] {
  const names = given.flatMap((v) => v.split(/[\s,]+/)).map((v) => v.trim().toLowerCase()).filter((v) => v !== "");
  return [...new Set(names)];
}

/**
 * The known name a misspelled one most likely meant: the closest by edit distance (closest-name.ts), else
 * one with the same letters in another order (`grcp` → `grpc`), else the only one it begins (`0.3` → `0.3.0`).
 */
export function suggestion(name: string, known: readonly string[]): string | undefined {
  const closest = closestName(name, known);
  if (closest !== undefined) return closest;
  const letters = (s: string) => [...s.toLowerCase()].sort().join("");
  const anagram = known.find((k) => letters(k) === letters(name));
  if (anagram !== undefined) return anagram;
  const extended = known.filter((k) => name.length >= 2 && k.toLowerCase().startsWith(name.toLowerCase()));
  return extended.length === 1 ? extended[0] : undefined;
}

/** ` (did you mean "fastify"?)` when a name is close to one of `known`, else nothing. */
export function didYouMean(name: string, known: readonly string[]): string {
  const closest = suggestion(name, known);
  return closest === undefined ? "" : ` (did you mean "${closest}"?)`;
}

/** The message for a value an option does not take: names the allowed values and the closest. */
export function unknownValueMessage(values: OptionValues, value: string): string {
  const allowed = values.allowed();
  return `unknown ${values.noun} "${value}"${didYouMean(value, allowed)}; ${values.nouns}: ${allowed.join(", ")}`;
}

/** The index of the first value `option` does not take, or -1 (any value, for an option without values). */
export function firstUnknownValue(option: OptionDeclaration, values: readonly string[]): number {
  if (option.values === undefined) return -1;
  const allowed = option.values.allowed();
  return values.findIndex((v) => !allowed.includes(v));
}

/** Checks a command-line value (or list) of `option`; a usage error naming the allowed values and the closest. */
export function checkFlagValues(option: OptionDeclaration, values: readonly string[]): void {
  const bad = firstUnknownValue(option, values);
  if (bad >= 0 && option.values !== undefined) throw new CodegenError(unknownValueMessage(option.values, values[bad] as string), { kind: "usage" });
}

/** A flag the command does not have: the message names the closest it has. */
export function unknownFlagMessage(options: readonly OptionDeclaration[], flag: string): string {
  const known = options.filter((o) => o.positional !== true).flatMap((o) => [o.flag, ...(o.aliases ?? [])]).filter((f) => f.length > 1);
  const closest = suggestion(flag.replace(/^-+/, ""), known);
  return closest === undefined ? "" : ` (did you mean --${closest}?)`;
}

/** `allow-type-errors` → `allowTypeErrors`: the key yargs gives a flag under. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
export function camelCase<S extends string>(flag: S): CamelCase<S> {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as CamelCase<S>;
}

type FlagValue<D> = D extends { type: "boolean" } ? boolean : D extends { list: true } ? string[] : string;
/** The flags of `generate`, as yargs gives them (camel case; a list flag as given, before listValues). */
export type GenerateArgs = { [D in Extract<Declared, { default: boolean }> as CamelCase<D["flag"]>]: boolean } & {
  [D in Exclude<Declared, { default: boolean }> as CamelCase<D["flag"]>]?: FlagValue<D> | undefined;
};
