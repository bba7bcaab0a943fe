// Validator micro-benchmark: the generated validators (Ajv standalone code compiled at generation time,
// with tag dispatch) against plain Ajv compiled at run time from the same bundled schema, and against zod 4
// schemas written for the same objects, on three values per version: a Message, a Task with 10 history
// messages, and a SendMessage request. Also the size of the generated validator code per version.
//
//   node bench/validators.bench.mjs [--versions 0.3.0,1.0.1] [--time 1] [--rounds 5] [--no-write]
//
// Everything runs in this process, after a build (`npm run build`): the generated folders are compiled to
// JavaScript into a temporary directory with tsc. Each row is the median of --rounds rounds of --time
// seconds of calls on a valid value (the common case on a server); a second table times an invalid value
// (one wrong field), where error reporting costs. See bench/README.md, section "Validators".
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { compileGenerated } from "./compile-generated.mjs";
import { captureConsole, machineLine, writeReadmeSection } from "./readme-section.mjs";

const require = createRequire(import.meta.url);
const Ajv = require("ajv").default;
const ROOT = resolve(import.meta.dirname, "..");
const RESULTS = join(ROOT, "bench", "results", "validators-latest.json");
/** The goal of issue 12: at most this much generated validator code per version. */
const SIZE_GOAL_BYTES = 200 * 1024;

function parseArgs(argv) {
  const o = { versions: ["0.3.0", "1.0.1"], time: 1, rounds: 5, write: true };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=");
    const value = () => inline ?? argv[++i];
    if (name === "--versions") o.versions = value().split(",");
    else if (name === "--time") o.time = Number(value());
    else if (name === "--rounds") o.rounds = Number(value());
    else if (name === "--no-write") o.write = false;
    else if (name === "--help" || name === "-h") {
      console.log(readFileSync(new URL(import.meta.url), "utf8").split("\n").slice(0, 11).join("\n"));
      process.exit(0);
    } else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

// ---------------------------------------------------------------------------------------------------
// The values, per version (each must be valid: the bench checks it before timing)

function samples(version) {
  const v1 = version.startsWith("1.");
  const text = (t) => (v1 ? { text: t } : { kind: "text", text: t });
  const message = (i, role) => ({
    ...(v1 ? {} : { kind: "message" }),
    messageId: `m-${i}`,
    contextId: "c-1",
    taskId: "t-1",
    role: v1 ? (role === "user" ? "ROLE_USER" : "ROLE_AGENT") : role,
    parts: [text(`turn ${i}: a sentence of ordinary length for a chat message.`), ...(i % 3 === 0 ? [v1 ? { data: { n: i, ok: true } } : { kind: "data", data: { n: i, ok: true } }] : [])],
    metadata: { seq: i },
  });
  const task = {
    ...(v1 ? {} : { kind: "task" }),
    id: "t-1",
    contextId: "c-1",
    status: { state: v1 ? "TASK_STATE_COMPLETED" : "completed", timestamp: "2026-11-23T10:00:00Z", message: message(99, "agent") },
    history: Array.from({ length: 10 }, (_, i) => message(i, i % 2 ? "agent" : "user")),
    artifacts: [{ artifactId: "a-1", name: "answer", parts: [text("the answer")] }],
  };
  const request = {
    jsonrpc: "2.0",
    id: 1,
    method: v1 ? "SendMessage" : "message/send",
    params: {
      message: message(0, "user"),
      configuration: v1 ? { acceptedOutputModes: ["text/plain"], historyLength: 5, returnImmediately: false } : { acceptedOutputModes: ["text/plain"], historyLength: 5, blocking: true },
    },
  };
  const requestDefinition = v1 ? "SendMessageRpcRequest" : "SendMessageRequest";
  // One wrong field deep inside: a part's text is a number.
  const bad = structuredClone(request);
  bad.params.message.parts[0].text = 42;
  return [
    { name: "Message", definition: "Message", value: message(1, "user") },
    { name: "Task (10 history messages)", definition: "Task", value: task },
    { name: "SendMessage request", definition: requestDefinition, value: request },
    { name: "SendMessage request, one bad field", definition: requestDefinition, value: bad, invalid: true },
  ];
}

// ---------------------------------------------------------------------------------------------------
// zod 4 schemas for the same objects, as a zod user would write them from the specification

function zodSchemas(z, version) {
  const v1 = version.startsWith("1.");
  const metadata = z.record(z.string(), z.unknown()).optional();
  const part = v1
    ? z.union([
        z.strictObject({ text: z.string(), metadata, filename: z.string().optional(), mediaType: z.string().optional() }),
        z.strictObject({ raw: z.string(), metadata, filename: z.string().optional(), mediaType: z.string().optional() }),
        z.strictObject({ url: z.string(), metadata, filename: z.string().optional(), mediaType: z.string().optional() }),
        z.strictObject({ data: z.unknown(), metadata, filename: z.string().optional(), mediaType: z.string().optional() }),
      ])
    : z.discriminatedUnion("kind", [
        z.strictObject({ kind: z.literal("text"), text: z.string(), metadata }),
        z.strictObject({
          kind: z.literal("file"),
          file: z.union([
            z.strictObject({ bytes: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
            z.strictObject({ uri: z.string(), mimeType: z.string().optional(), name: z.string().optional() }),
          ]),
          metadata,
        }),
        z.strictObject({ kind: z.literal("data"), data: z.record(z.string(), z.unknown()), metadata }),
      ]);
  const message = z.strictObject({
    ...(v1 ? {} : { kind: z.literal("message") }),
    messageId: z.string(),
    contextId: z.string().optional(),
    taskId: z.string().optional(),
    role: v1 ? z.enum(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]) : z.enum(["user", "agent"]),
    parts: z.array(part).min(1),
    metadata,
    extensions: z.array(z.string()).optional(),
    referenceTaskIds: z.array(z.string()).optional(),
  });
  const states = v1
    ? ["TASK_STATE_UNSPECIFIED", "TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_INPUT_REQUIRED", "TASK_STATE_REJECTED", "TASK_STATE_AUTH_REQUIRED"]
    : ["submitted", "working", "input-required", "completed", "canceled", "failed", "rejected", "auth-required", "unknown"];
  const artifact = z.strictObject({
    artifactId: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    parts: z.array(part),
    metadata,
    extensions: z.array(z.string()).optional(),
  });
  const task = z.strictObject({
    ...(v1 ? {} : { kind: z.literal("task") }),
    id: z.string(),
    contextId: z.string(),
    status: z.strictObject({ state: z.enum(states), message: message.optional(), timestamp: z.string().optional() }),
    history: z.array(message).optional(),
    artifacts: z.array(artifact).optional(),
    metadata,
  });
  const configuration = z.strictObject({
    acceptedOutputModes: z.array(z.string()).optional(),
    historyLength: z.number().int().optional(),
    ...(v1 ? { returnImmediately: z.boolean().optional(), taskPushNotificationConfig: z.unknown().optional() } : { blocking: z.boolean().optional(), pushNotificationConfig: z.unknown().optional() }),
  });
  const request = z.strictObject({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number().int(), z.null()]),
    method: z.literal(v1 ? "SendMessage" : "message/send"),
    params: z.strictObject({ message, configuration: configuration.optional(), metadata, ...(v1 ? { tenant: z.string().optional() } : {}) }),
  });
  return { Message: message, Task: task, [v1 ? "SendMessageRpcRequest" : "SendMessageRequest"]: request };
}

// ---------------------------------------------------------------------------------------------------
// Build: the generated validators compiled to JavaScript

const build = (version) => compileGenerated(version, ["validators.ts"], "a2a-validators-bench-");

async function bundledSchema(version) {
  const json = join(ROOT, "schema", `a2a-${version}.json`);
  try {
    return JSON.parse(readFileSync(json, "utf8"));
  } catch {
    const { protoToJsonSchema } = await import(pathToFileURL(join(ROOT, "dist", "proto", "to-json-schema.js")).href);
    return protoToJsonSchema(join(ROOT, "schema", `a2a-${version}.proto`)).schema;
  }
}

// ---------------------------------------------------------------------------------------------------
// Timing

let sink = 0;
function opsPerSecond(fn, value, seconds) {
  // Calls in batches, checking the clock between batches.
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const batch = 200;
  while (performance.now() < end) {
    for (let i = 0; i < batch; i++) sink ^= fn(value) ? 1 : 0;
    n += batch;
  }
  return n / seconds;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const fmt = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)}M` : `${(n / 1e3).toFixed(0)}k`);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const printed = captureConsole();
  const { AJV_OPTIONS, SCHEMA_ID } = await import(pathToFileURL(join(ROOT, "dist", "ir", "validator-schema.js")).href);
  const z = await import("zod");
  const results = { date: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, load: loadavg()[0] }, versions: {} };
  console.log(`validators benchmark: ${o.rounds} rounds × ${o.time} s per cell, node ${process.version}, ${cpus().length} cpus, load ${loadavg()[0].toFixed(2)}\n`);
  for (const version of o.versions) {
    const dir = build(version);
    try {
      const { validators } = await import(pathToFileURL(join(dir, "validators.js")).href);
      const schema = await bundledSchema(version);
      const key = "$defs" in schema ? "$defs" : "definitions";
      const ajv = new Ajv({ ...AJV_OPTIONS, strict: false });
      ajv.addSchema(schema, SCHEMA_ID);
      const zod = zodSchemas(z, version);
      const size = statSync(join(ROOT, "generated", `a2a-${version}`, "validators.ajv.ts")).size + statSync(join(ROOT, "generated", `a2a-${version}`, "validators.ts")).size;
      const rows = [];
      for (const sample of samples(version)) {
        const ours = validators[sample.definition];
        const plain = ajv.getSchema(`${SCHEMA_ID}#/${key}/${sample.definition}`);
        const zs = zod[sample.definition];
        const contenders = { "a2a-codegen": (v) => ours(v), "plain Ajv": (v) => plain(v), "zod 4": (v) => zs.safeParse(v).success };
        for (const [name, fn] of Object.entries(contenders)) {
          if (fn(sample.value) === Boolean(sample.invalid)) throw new Error(`${version} ${sample.name}: ${name} gives the wrong verdict; the bench's value or schema is wrong`);
        }
        const row = { value: sample.name };
        for (const [name, fn] of Object.entries(contenders)) {
          opsPerSecond(fn, sample.value, 0.2); // warm-up
          row[name] = median(Array.from({ length: o.rounds }, () => opsPerSecond(fn, sample.value, o.time)));
        }
        rows.push(row);
      }
      results.versions[version] = { codeBytes: size, rows };
      console.log(`A2A ${version}: generated validator code ${(size / 1024).toFixed(0)} KB (goal ≤ ${SIZE_GOAL_BYTES / 1024} KB: ${size <= SIZE_GOAL_BYTES ? "PASS" : "MISS"})`);
      console.log(`${"value".padEnd(38)}${"a2a-codegen".padStart(14)}${"plain Ajv".padStart(14)}${"zod 4".padStart(14)}   ops/s`);
      for (const r of rows) console.log(`${r.value.padEnd(38)}${fmt(r["a2a-codegen"]).padStart(14)}${fmt(r["plain Ajv"]).padStart(14)}${fmt(r["zod 4"]).padStart(14)}`);
      console.log("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (sink === -1) console.log(sink);
  if (o.write) {
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    writeReadmeSection("validators", "Validators", printed(), { command: `node bench/validators.bench.mjs ${process.argv.slice(2).join(" ")}`.trim(), machine: machineLine(results.machine) });
    console.log(`wrote ${RESULTS.slice(ROOT.length + 1)} and bench/README.md`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
