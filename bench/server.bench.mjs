// Server throughput benchmark: the generated A2A 0.3.0 server (node:http, Express, Fastify and Hono
// adapters) against a bare node:http JSON echo (the upper bound) and @a2a-js/sdk's Express server.
//
//   node bench/server.bench.mjs [--rounds 5] [--duration 5] [--warmup 1] [--connections 50] [--targets node,express,…]
//                               [--segments 4] [--segment-duration 2]
//                               [--sse-events 1000] [--sse-streams 4] [--sse-duration 2]
//                               [--rss-tasks 50000] [--rss-targets node,sdk] [--only throughput,sse,rss|none]
//                               [--profile node:task,node:sse] [--no-write]
//
// Everything runs on 127.0.0.1. Each server runs in its own child process (bench/server-target.mjs),
// started fresh for each measurement; the load generator (autocannon, and a small SSE client) runs in
// this process. See bench/README.md, section "Server".
import { fork } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { cpus, freemem, loadavg, platform, release, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { createRequire } from "node:module";
import { compileGenerated, serverEntries } from "./compile-generated.mjs";
import { summarize, printSummary } from "./server-profile.mjs";
import { captureConsole, writeReadmeSection } from "./readme-section.mjs";
import { oneStream } from "./sse-stream.mjs";
import { BUSY_VERDICT, OTHERS_BUSY_CORES, machineSample, machineState, othersBetween, quietProbe, verdict } from "./machine-load.mjs";
import { median, middleHalf } from "./stats.mjs";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon");

const ROOT = resolve(import.meta.dirname, "..");
const SPEC = "0.3.0";
const GENERATED_DIR = join(ROOT, "generated", `a2a-${SPEC}`);
const TARGET_SCRIPT = join(ROOT, "bench", "server-target.mjs");
const RESULTS = join(ROOT, "bench", "results", "server-latest.json");
const ADAPTERS = ["node", "express", "fastify", "hono"];
/** The bare echo each target is held against: the framework's own echo route where it has one. */
const BARE_FRAMEWORK = { "bare-express": true, "bare-hono": true };
/** Targets with no streaming route (the framework echoes, the adapter floors): left out of the SSE rows. */
const NO_STREAM = { ...BARE_FRAMEWORK, "floor-node": true, "floor-fastify": true };
const BARE_OF = { node: "bare", fastify: "bare", express: "bare-express", hono: "bare-hono" };
/** The goals of the node:http and Fastify adapters (issue 12): × the SDK's req/s per payload, and a share of the bare echo's (hello). */
const SDK_TIMES = [["hello", 4], ["task", 3]];
const OF_BARE_ECHO = 0.65;
/** Rate goals get a verdict only from at least this many interleaved rounds (issue 37). */
const MIN_ROUNDS = 5;
/** The adapter floor of a target: the same adapter over a stub core that only parses and answers. */
const FLOOR_OF = { node: "floor-node", fastify: "floor-fastify" };
const LABEL = {
  bare: "bare node:http echo",
  "bare-express": "bare Express echo",
  "bare-hono": "bare Hono echo",
  "floor-node": "node:http adapter floor",
  "floor-fastify": "Fastify adapter floor",
  node: "a2a-codegen node:http",
  express: "a2a-codegen Express",
  fastify: "a2a-codegen Fastify",
  hono: "a2a-codegen Hono",
  sdk: "@a2a-js/sdk Express",
};

/**
 * The message/send goals, each a target against its base at `times` (`share`: printed as a share; `goal`:
 * its wording). Judged on paired segments: the two run side by side (two child processes, one idle while
 * the other is loaded) and take turns under load in short segments, so that each ratio compares two
 * measures a few seconds apart. The ceilings below read the node:http and Fastify ones too.
 */
const PAIRS = [
  ...["node", "fastify"].flatMap((target) => [
    ...SDK_TIMES.map(([payload, times]) => ({ target, base: "sdk", payload, times, goal: `${times}× SDK` })),
    { target, base: "bare", payload: "hello", times: OF_BARE_ECHO, share: true, goal: `${Math.round(100 * OF_BARE_ECHO)} % of the bare node:http echo` },
  ]),
  ...["express", "hono"].flatMap((target) =>
    ["hello", "task"].map((payload) => ({ target, base: BARE_OF[target], payload, times: 0.85, share: true, goal: `85 % of the ${LABEL[BARE_OF[target]]}` })),
  ),
];
const pairKey = (pair) => `${pair.payload}:${pair.target}:${pair.base}`;

// ---------------------------------------------------------------------------------------------------
// Options

function parseArgs(argv) {
  const o = {
    duration: 5,
    warmup: 1,
    rounds: 5,
    segments: 4,
    segmentDuration: 2,
    connections: 50,
    targets: ["bare", "bare-express", "bare-hono", "floor-node", "floor-fastify", ...ADAPTERS, "sdk"],
    sseEvents: 1000,
    sseStreams: 4,
    sseDuration: 2,
    rssTasks: 50_000,
    rssTargets: ["node", "sdk"],
    only: ["throughput", "sse", "rss"],
    profile: undefined,
    write: true,
  };
  const list = (v) => v.split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = a.includes("=") ? a.slice(a.indexOf("=") + 1) : argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const name = a.split("=")[0];
    if (name === "--duration") o.duration = Number(value());
    else if (name === "--warmup") o.warmup = Number(value());
    else if (name === "--rounds") o.rounds = Number(value());
    else if (name === "--segments") o.segments = Number(value());
    else if (name === "--segment-duration") o.segmentDuration = Number(value());
    else if (name === "--connections") o.connections = Number(value());
    else if (name === "--targets") o.targets = list(value());
    else if (name === "--sse-events") o.sseEvents = Number(value());
    else if (name === "--sse-streams") o.sseStreams = Number(value());
    else if (name === "--sse-duration") o.sseDuration = Number(value());
    else if (name === "--rss-tasks") o.rssTasks = Number(value());
    else if (name === "--rss-targets") o.rssTargets = list(value());
    else if (name === "--only") o.only = list(value());
    else if (name === "--profile") o.profile = value();
    else if (name === "--no-write") o.write = false;
    else if (name === "--help" || name === "-h") {
      console.log(readFileSync(new URL(import.meta.url), "utf8").split("\n").slice(0, 12).join("\n"));
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.rounds) || o.rounds < 1) throw new Error(`--rounds: expected a positive integer, got ${o.rounds}`);
  if (!Number.isInteger(o.segments) || o.segments < 0) throw new Error(`--segments: expected 0 (no paired segments) or a positive integer, got ${o.segments}`);
  if (!(o.segmentDuration > 0)) throw new Error(`--segment-duration: expected a positive number of seconds, got ${o.segmentDuration}`);
  for (const t of [...o.targets, ...o.rssTargets]) if (!LABEL[t]) throw new Error(`unknown target ${t} (one of ${Object.keys(LABEL).join(", ")})`);
  return o;
}

// ---------------------------------------------------------------------------------------------------
// Build: the generated folder compiled to JavaScript in a temporary directory

function build() {
  const started = performance.now();
  // Every file of server/: an adapter added to the output is compiled without this list changing.
  const dir = compileGenerated(SPEC, serverEntries(GENERATED_DIR), "a2a-server-bench-");
  for (const f of ["server/core.js", "runtime/http/server.js", "validators.js", "validators.ajv.js"]) {
    if (!existsSync(join(dir, f))) throw new Error(`build: ${f} missing in ${dir}`);
  }
  return { dir, ms: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------------
// Server children

async function startTarget(target, buildDir, { burst = 1000, exposeGc = false } = {}) {
  const child = fork(TARGET_SCRIPT, [target, buildDir, String(burst)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: exposeGc ? ["--expose-gc"] : [],
  });
  const waiters = [];
  child.on("message", (m) => {
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
    else if (m.type === "error") console.error(`[${target}] ${m.message}`);
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const wait = (type, ms = 30_000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${target}: no ${type} after ${ms} ms`)), ms);
      waiters.push({ type, resolve: (m) => (clearTimeout(timer), resolve(m)) });
      exited.then(({ code, signal }) => reject(new Error(`${target}: exited (${code ?? signal}) while waiting for ${type}`)));
    });
  const ready = wait("ready");
  const { port } = await ready;
  const ask = (msg, reply = msg.type, ms) => {
    const answer = wait(reply, ms);
    child.send(msg);
    return answer;
  };
  return {
    target,
    port,
    url: `http://127.0.0.1:${port}/a2a`,
    ask,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: "stop" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Requests

const rpcBody = (method, text, id = "1", messageId = "m-1") =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      message: { kind: "message", role: "user", messageId, parts: [{ kind: "text", text }] },
      configuration: { acceptedOutputModes: ["text/plain"] },
    },
  });

/**
 * autocannon options for message/send with `text`: a new JSON-RPC id and messageId on every request.
 * (autocannon's own idReplacement assumes a fixed id length and sends a wrong Content-Length now and
 * then, which leaves the server waiting for bytes that never come; setupRequest sizes each body.)
 */
function sendLoad(url, text, o, extra) {
  let n = 0;
  const prefix = `${process.pid.toString(36)}-${Date.now().toString(36)}-`;
  const [head, middle, tail] = rpcBody("message/send", text, "\u0000", "m-\u0000").split("\\u0000");
  return {
    url,
    connections: o.connections,
    timeout: 10,
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        setupRequest(req) {
          const id = prefix + (n++).toString(36);
          req.body = head + id + middle + id + tail;
          return req;
        },
      },
    ],
    ...extra,
  };
}

/** One request of each kind, checked, before the load: a target that answers errors must not be measured. */
async function preflight(server, payload) {
  const response = await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: rpcBody("message/send", payload) });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  const r = json?.result;
  const ok =
    response.status === 200 &&
    (payload === "hello" ? r?.kind === "message" : r?.kind === "task" && r.status?.state === "completed" && r.artifacts?.length === 1);
  if (!ok) throw new Error(`${server.target} answered ${payload} with ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
  return Buffer.byteLength(text);
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon(opts, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/** Above this CPU share, autocannon itself is the bottleneck (it is single-threaded). */
const SATURATED = 85;

/** Above this share of one core, other processes competed with the measurement: the row is flagged. */
const CONTENDED = 100 * OTHERS_BUSY_CORES;

const cpuPercent = (before, after, wallMs) => (100 * (after.user + after.system - before.user - before.system)) / 1000 / wallMs;

/**
 * `server` under message/send load for `seconds`: autocannon's result, and the CPU the server used, the
 * load generator used, and other processes used meanwhile (the machine's busy time minus ours,
 * machine-load.mjs). `idle`: servers that run beside it without load; their CPU counts as ours too.
 */
async function loaded(server, payload, seconds, o, idle = []) {
  const ask = () => Promise.all([server, ...idle].map((s) => s.ask({ type: "cpu" })));
  const srvBefore = await ask();
  const genBefore = process.cpuUsage();
  const machineBefore = machineSample();
  const t0 = performance.now();
  const result = await cannon(sendLoad(server.url, payload, o, { duration: seconds }));
  const wall = performance.now() - t0;
  const machineAfter = machineSample();
  const srvAfter = await ask();
  const genAfter = process.cpuUsage();
  const used = (a, b) => b.user + b.system - a.user - a.system;
  const ours = srvBefore.reduce((sum, before, i) => sum + used(before, srvAfter[i]), 0);
  return {
    result,
    seconds: result.duration || wall / 1000,
    serverCpuUs: used(srvBefore[0], srvAfter[0]),
    serverCpu: cpuPercent(srvBefore[0], srvAfter[0], srvAfter[0].at - srvBefore[0].at),
    loadGenCpu: cpuPercent(genBefore, genAfter, wall),
    others: othersBetween(machineBefore, machineAfter, ours / 1000),
  };
}

async function throughput(server, payload, o) {
  const responseBytes = await preflight(server, payload);
  if (o.warmup > 0) await cannon(sendLoad(server.url, payload, o, { duration: o.warmup }));
  const { result, seconds, serverCpuUs, serverCpu, loadGenCpu, others } = await loaded(server, payload, o.duration, o);
  return {
    target: server.target,
    payload,
    reqPerSec: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    responseBytes,
    serverCpu,
    /** Server CPU time per answered request: comparable even when the load generator is the bottleneck. */
    serverCpuUsPerReq: serverCpuUs / Math.max(1, result.requests.total),
    loadGenCpu,
    /** CPU used by other processes during the run (machine busy time − server − load generator), % of one core. */
    otherCpu: 100 * others.othersCores,
    steal: others.steal,
  };
}

/** One segment of a pair: `server` under load for `seconds` while `idle` waits beside it. */
async function segment(server, idle, payload, seconds, o) {
  const { result, seconds: measured, serverCpuUs, others } = await loaded(server, payload, seconds, o, [idle]);
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${server.target}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts in a segment`);
  return { reqPerSec: result.requests.total / measured, cpuUsPerReq: serverCpuUs / Math.max(1, result.requests.total), otherCpu: 100 * others.othersCores, steal: others.steal };
}

/**
 * A pair's segments in one round: both servers started, checked and warmed up, then loaded in turn
 * (`segments` turns each, the order reversed every other turn). Each turn of the target and the base turn
 * next to it give one ratio of each measure: req/s (target ÷ base) and CPU per request (base ÷ target).
 */
async function pairedSegments(a, b, pair, o) {
  for (const server of [a, b]) {
    await preflight(server, pair.payload);
    if (o.warmup > 0) await cannon(sendLoad(server.url, pair.payload, o, { duration: o.warmup }));
  }
  const ratios = [];
  for (let i = 0; i < o.segments; i++) {
    const first = i % 2 === 0 ? a : b;
    const second = first === a ? b : a;
    const m1 = await segment(first, second, pair.payload, o.segmentDuration, o);
    const m2 = await segment(second, first, pair.payload, o.segmentDuration, o);
    const [target, base] = first === a ? [m1, m2] : [m2, m1];
    ratios.push({ rate: target.reqPerSec / base.reqPerSec, cpu: base.cpuUsPerReq / target.cpuUsPerReq, target, base });
  }
  return ratios;
}

// ---------------------------------------------------------------------------------------------------
// SSE: concurrent message/stream requests, each answered with `events` artifact chunks (read by bench/sse-stream.mjs).

async function sseRun(server, { streams, seconds, events }) {
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const body = rpcBody("message/stream", "burst");
  const expected = events + 3; // the task, working, the chunks, completed
  let total = 0;
  let completed = 0;
  let short = 0;
  const durations = [];
  const t0 = performance.now();
  const deadline = t0 + seconds * 1000;
  const srvBefore = await server.ask({ type: "cpu" });
  const machineBefore = machineSample();
  await Promise.all(
    Array.from({ length: streams }, async () => {
      do {
        const s0 = performance.now();
        const n = await oneStream(server.url, agent, body);
        durations.push(performance.now() - s0);
        total += n;
        completed++;
        if (n !== expected) short++;
      } while (performance.now() < deadline);
    }),
  );
  const wall = performance.now() - t0;
  const machineAfter = machineSample();
  const srvAfter = await server.ask({ type: "cpu" });
  const others = othersBetween(machineBefore, machineAfter, (srvAfter.user + srvAfter.system - srvBefore.user - srvBefore.system) / 1000);
  agent.destroy();
  durations.sort((a, b) => a - b);
  return {
    target: server.target,
    eventsPerSec: (total * 1000) / wall,
    events: total,
    streams: completed,
    eventsPerStream: events,
    unexpectedCounts: short,
    streamMsP50: durations[Math.floor(durations.length / 2)],
    serverCpu: cpuPercent(srvBefore, srvAfter, srvAfter.at - srvBefore.at),
    // Server CPU time per event (µs): steadier than events/s when other processes compete for the cores.
    serverCpuUsPerEvent: (srvAfter.user + srvAfter.system - srvBefore.user - srvBefore.system) / Math.max(1, total),
    otherCpu: 100 * others.othersCores,
    steal: others.steal,
  };
}

// ---------------------------------------------------------------------------------------------------
// Output

const fmt = {
  int: (n) => (n === undefined || Number.isNaN(n) ? "—" : Math.round(n).toLocaleString("en-US")),
  // autocannon's latency histogram has a 1 ms resolution: 0 means under 1 ms.
  ms: (n) => (n === undefined ? "—" : n === 0 ? "<1 ms" : `${n < 10 ? n.toFixed(1) : n.toFixed(0)} ms`),
  pct: (n) => (n === undefined ? "—" : `${n.toFixed(0)} %`),
  mib: (n) => (n === undefined ? "—" : `${(n / 1024 / 1024).toFixed(0)} MiB`),
  x: (n) => (n === undefined ? "—" : `${n.toFixed(2)}×`),
  /** The lowest and highest rate of a row's rounds ("—" for a single round). */
  range: (rates) => (rates === undefined || rates.length < 2 ? "—" : `${fmt.int(Math.min(...rates))}–${fmt.int(Math.max(...rates))}`),
};

function table(headers, rows, align) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (align[i] === "l" ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function machine() {
  const cpu = cpus();
  return {
    cpus: cpu.length,
    model: cpu[0]?.model ?? "?",
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    freeGiB: +(freemem() / 2 ** 30).toFixed(1),
    os: `${platform()} ${release()}`,
    node: process.version,
  };
}

const version = (pkg) => {
  try {
    return JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return "?";
  }
};

// ---------------------------------------------------------------------------------------------------

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const printed = captureConsole();
  const startedAt = new Date();
  const load0 = loadavg()[0];
  const wall0 = performance.now();
  const m = machine();
  console.log(`server benchmark — A2A ${SPEC}, 127.0.0.1, ${o.connections} connections, ${o.warmup} s warm-up + ${o.duration} s per run, ${o.rounds} round${o.rounds === 1 ? "" : "s"}`);
  console.log(`machine: ${m.cpus} × ${m.model}, ${m.memoryGiB} GiB, ${m.os}, node ${m.node}; load ${load0.toFixed(2)}`);
  console.log(
    `versions: a2a-codegen ${JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version}, @a2a-js/sdk ${version("@a2a-js/sdk")}, express ${version("express")}, fastify ${version("fastify")}, hono ${version("hono")}, @hono/node-server ${version("@hono/node-server")}, autocannon ${version("autocannon")}`,
  );
  const { dir, ms } = build();
  console.log(`compiled generated/a2a-${SPEC} to ${dir} in ${ms.toFixed(0)} ms`);
  // What other processes use while the bench does nothing (2 s), with the load average from before the build.
  const probe = { ...(await quietProbe(2000)), load: load0 };
  console.log(`before the runs: other processes used ${probe.othersCores.toFixed(2)} of ${probe.cores} cores, steal ${(100 * probe.steal).toFixed(1)} %\n`);
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  process.on("exit", cleanup);
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));
  const results = { startedAt: startedAt.toISOString(), spec: SPEC, options: { ...o }, machine: m, versions: {}, throughput: [], sse: [], rss: [], goals: [] };
  for (const p of ["@a2a-js/sdk", "express", "fastify", "hono", "@hono/node-server", "autocannon"]) results.versions[p] = version(p);
  let failed = false;

  const withServer = async (target, opts, fn) => {
    const server = await startTarget(target, dir, opts);
    try {
      return await fn(server);
    } finally {
      await server.stop();
    }
  };

  // 1. + 2. message/send throughput, then 3. SSE events/s: `rounds` rounds, the targets interleaved (their
  // order rotates from round to round), so that a slow spell of a shared machine falls on every target
  // alike; each row is the target's median round.
  const rotate = (list, by) => list.map((_, i) => list[(i + by) % list.length]);
  const samples = new Map();
  /** The segment ratios of each pair (pairKey), over every round; a pair that failed, with its error. */
  const paired = new Map();
  const pairFailures = new Map();
  /** One run of a row, printed and kept as one of its rounds (`fields` name the row; an error is kept as the row's). */
  const measure = async (fields, label, run, line) => {
    const key = `${fields.payload ?? "sse"}:${fields.target}`;
    if (!samples.has(key)) samples.set(key, []);
    process.stdout.write(`  ${label} ${LABEL[fields.target].padEnd(24)} `);
    try {
      const row = await run();
      samples.get(key).push(row);
      console.log(line(row));
    } catch (error) {
      failed = true;
      samples.get(key).push({ ...fields, error: String(error.message ?? error) });
      console.log(`— ${error.message ?? error}`);
    }
  };
  for (let round = 0; round < o.rounds; round++) {
    if (o.rounds > 1 && (o.only.includes("throughput") || o.only.includes("sse"))) console.log(`round ${round + 1} of ${o.rounds}`);
    let retries = 3; // re-measurements of contended runs in this round, at most
    if (o.only.includes("throughput")) {
      for (const payload of ["hello", "task"]) {
        for (const target of rotate(o.targets, round)) {
          await measure(
            { target, payload },
            payload.padEnd(5),
            async () => {
              const row = await withServer(target, {}, (server) => throughput(server, payload, o));
              if (row.otherCpu < CONTENDED || retries === 0) return row;
              retries--;
              // Another process took CPU during the run (a shared machine): measure once more, keep the cleaner run.
              process.stdout.write(`(others used ${fmt.pct(row.otherCpu)} of a core: again) `);
              const again = await withServer(target, {}, (server) => throughput(server, payload, o));
              return { ...(again.otherCpu < row.otherCpu ? again : row), retried: true };
            },
            (row) =>
              `${fmt.int(row.reqPerSec).padStart(7)} req/s  p50 ${fmt.ms(row.p50)}  p99 ${fmt.ms(row.p99)}${row.non2xx || row.errors || row.timeouts ? `  (${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts)` : ""}`,
          );
        }
      }
    }
    if (o.only.includes("throughput") && o.segments > 0) {
      // The rate goals again, each on a pair of servers loaded in turn (pairedSegments): the goals' verdicts.
      const pairs = PAIRS.filter((p) => o.targets.includes(p.target) && o.targets.includes(p.base));
      for (const pair of rotate(pairs, round)) {
        const key = pairKey(pair);
        if (!paired.has(key)) paired.set(key, []);
        process.stdout.write(`  pair  ${`${LABEL[pair.target]} / ${LABEL[pair.base]} (${pair.payload})`.padEnd(56)} `);
        try {
          const [a, b] = round % 2 === 0 ? [pair.target, pair.base] : [pair.base, pair.target];
          const first = await startTarget(a, dir);
          const ratios = await (async () => {
            try {
              const second = await startTarget(b, dir);
              try {
                const [target, base] = a === pair.target ? [first, second] : [second, first];
                return await pairedSegments(target, base, pair, o);
              } finally {
                await second.stop();
              }
            } finally {
              await first.stop();
            }
          })();
          paired.get(key).push(...ratios);
          const show = (x) => (pair.share ? fmt.pct(100 * x) : fmt.x(x));
          console.log(`req/s ${ratios.map((r) => show(r.rate)).join(" ")}  CPU/req ${ratios.map((r) => show(r.cpu)).join(" ")}`);
        } catch (error) {
          failed = true;
          pairFailures.set(key, String(error.message ?? error));
          console.log(`— ${error.message ?? error}`);
        }
      }
    }
    if (o.only.includes("sse")) {
      // The framework echoes and the adapter floors have no streaming route: the SSE rows compare with the bare node:http stream.
      for (const target of rotate(o.targets.filter((t) => !NO_STREAM[t]), round)) {
        await measure(
          { target },
          "sse  ",
          () =>
            withServer(target, { burst: o.sseEvents }, async (server) => {
              await sseRun(server, { streams: o.sseStreams, seconds: Math.min(0.5, o.sseDuration), events: o.sseEvents });
              return sseRun(server, { streams: o.sseStreams, seconds: o.sseDuration, events: o.sseEvents });
            }),
          (row) => `${fmt.int(row.eventsPerSec).padStart(7)} events/s  (${row.streams} streams)${row.unexpectedCounts ? `  ${row.unexpectedCounts} streams with an unexpected event count` : ""}`,
        );
      }
    }
  }
  // Each row: the median round (by req/s, or events/s; of an even number, the slower of the two middle
  // ones), with the lowest and highest of its rounds beside it.
  const medianRow = (rows, rate, cpu) => {
    const ok = rows.filter((r) => !r.error);
    if (ok.length < rows.length) return rows.find((r) => r.error);
    const sorted = [...ok].sort((a, b) => a[rate] - b[rate]);
    // The CPU per request (or event) of the row is the median of its rounds on its own (of an even number,
    // the costlier middle one): the two measures are judged each on its own median.
    const cpus = ok.map((r) => r[cpu]).sort((a, b) => a - b);
    return { ...sorted[Math.floor((sorted.length - 1) / 2)], rounds: sorted.map((r) => r[rate]), [cpu]: cpus[Math.ceil((cpus.length - 1) / 2)], cpuRounds: cpus, othersRounds: ok.map((r) => r.otherCpu / 100), stealRounds: ok.map((r) => r.steal ?? 0) };
  };
  for (const payload of ["hello", "task"]) {
    for (const target of o.targets) if (samples.has(`${payload}:${target}`)) results.throughput.push(medianRow(samples.get(`${payload}:${target}`), "reqPerSec", "serverCpuUsPerReq"));
  }
  for (const target of o.targets) if (samples.has(`sse:${target}`)) results.sse.push(medianRow(samples.get(`sse:${target}`), "eventsPerSec", "serverCpuUsPerEvent"));

  // 4. RSS after N completed tasks
  if (o.only.includes("rss")) {
    for (const target of o.rssTargets) {
      process.stdout.write(`  rss   ${LABEL[target].padEnd(24)} `);
      try {
        const row = await withServer(target, { exposeGc: true }, async (server) => {
          await preflight(server, "task");
          const before = await server.ask({ type: "mem", gc: true });
          const t0 = performance.now();
          const result = await cannon(sendLoad(server.url, "task", o, { amount: o.rssTasks }));
          const seconds = (performance.now() - t0) / 1000;
          const after = await server.ask({ type: "mem" });
          const afterGc = await server.ask({ type: "mem", gc: true });
          return {
            target,
            tasks: result.requests.total,
            ok: result["2xx"],
            seconds,
            rssStart: before.rss,
            rss: after.rss,
            rssAfterGc: afterGc.rss,
            heapUsedAfterGc: afterGc.heapUsed,
            heapUsedStart: before.heapUsed,
          };
        });
        results.rss.push(row);
        console.log(`${fmt.mib(row.rss)} after ${fmt.int(row.tasks)} tasks (${row.seconds.toFixed(1)} s)`);
      } catch (error) {
        failed = true;
        results.rss.push({ target, error: String(error.message ?? error) });
        console.log(`— ${error.message ?? error}`);
      }
    }
  }

  // Tables
  const roundsNote =
    o.rounds === 1 ? "one round" : `the median of ${o.rounds} rounds${o.rounds % 2 === 0 ? " (the slower middle one)" : ""}, lowest–highest under "rounds"`;
  const get = (target, payload) => results.throughput.find((r) => r.target === target && r.payload === payload && !r.error);
  if (results.throughput.length) {
    console.log(`\nmessage/send throughput (each server alone in its child process, autocannon in the parent; ${roundsNote}):\n`);
    const rows = [];
    for (const payload of ["hello", "task"]) {
      const sdk = get("sdk", payload);
      for (const target of o.targets) {
        const bare = get(BARE_OF[target] ?? "bare", payload);
        const r = get(target, payload);
        if (!r) {
          rows.push([payload === "hello" ? "hello (direct reply)" : "task (lifecycle)", LABEL[target], "—", "—", "—", "—", "—", "—", "—", "—", "—", "—", "—"]);
          continue;
        }
        rows.push([
          payload === "hello" ? "hello (direct reply)" : "task (lifecycle)",
          LABEL[target],
          `${fmt.int(r.reqPerSec)}${r.loadGenCpu >= SATURATED ? "*" : ""}${r.otherCpu >= CONTENDED ? "!" : ""}`,
          fmt.range(r.rounds),
          fmt.ms(r.p50),
          fmt.ms(r.p99),
          bare ? fmt.pct((100 * r.reqPerSec) / bare.reqPerSec) : "—",
          sdk ? fmt.x(r.reqPerSec / sdk.reqPerSec) : "—",
          fmt.pct(r.serverCpu),
          `${r.serverCpuUsPerReq.toFixed(0)} µs`,
          fmt.pct(r.loadGenCpu),
          fmt.pct(r.otherCpu),
          r.non2xx + r.errors + r.timeouts === 0 ? "0" : `${r.non2xx}/${r.errors}/${r.timeouts}`,
        ]);
      }
    }
    console.log(table(["payload", "server", "req/s", "rounds", "p50", "p99", "% of its bare", "× SDK", "srv CPU", "CPU/req", "gen CPU", "others", "bad"], rows, ["l", "l"]));
    console.log(
      `\nsrv CPU: the server process's CPU time / wall time (GC threads count too); CPU/req: its CPU time per answered request;` +
        `\ngen CPU: the load generator's (this process); others: CPU used by other processes on the machine during the run.` +
        (results.throughput.some((r) => r.loadGenCpu >= SATURATED)
          ? `\n* the load generator was ≥ ${SATURATED} % busy: that row is bounded by autocannon on this machine, not by the server.`
          : "") +
        (results.throughput.some((r) => r.otherCpu >= CONTENDED)
          ? `\n! other processes used ≥ ${CONTENDED} % of a core during that run: it is slower than it should be; rerun on a quiet machine.`
          : "") +
        `\nbad: non-2xx / errors / timeouts.`,
    );
  }
  if (results.sse.length) {
    console.log(`\nSSE: message/stream, ${o.sseStreams} concurrent streams of ${o.sseEvents} artifact chunks (+ task, working, completed), ${o.sseDuration} s; ${roundsNote}:\n`);
    const bare = results.sse.find((r) => r.target === "bare" && !r.error);
    const rows = results.sse.map((r) =>
      r.error
        ? [LABEL[r.target], "—", "—", "—", "—", "—", "—", "—"]
        : [
            LABEL[r.target],
            fmt.int(r.eventsPerSec),
            fmt.range(r.rounds),
            fmt.int(r.streams),
            fmt.ms(r.streamMsP50),
            bare ? fmt.pct((100 * r.eventsPerSec) / bare.eventsPerSec) : "—",
            fmt.pct(r.serverCpu),
            `${r.serverCpuUsPerEvent.toFixed(1)} µs`,
          ],
    );
    console.log(table(["server", "events/s", "rounds", "streams", "stream p50", "% of bare", "srv CPU", "CPU/event"], rows, ["l"]));
  }
  if (results.rss.length) {
    console.log(`\nmemory after ${fmt.int(o.rssTasks)} completed tasks (message/send "task", ${o.connections} connections):\n`);
    const rows = results.rss.map((r) =>
      r.error
        ? [LABEL[r.target], "—", "—", "—", "—", "—"]
        : [LABEL[r.target], fmt.mib(r.rssStart), fmt.mib(r.rss), fmt.mib(r.rssAfterGc), fmt.mib(r.heapUsedAfterGc), `${fmt.int(r.ok)} in ${r.seconds.toFixed(1)} s`],
    );
    console.log(table(["server", "RSS at start", "RSS after", "RSS after GC", "heap after GC", "tasks"], rows, ["l"]));
  }

  // Goals (issues 12 and 37). A rate goal is judged twice, on the median of the rounds' rates (req/s or
  // events/s) and on the median of the server's CPU time per request (per event), which other processes
  // on the machine disturb far less; it passes only when both pass. With fewer than MIN_ROUNDS rounds, or
  // on a busy machine (machine-load.mjs: other processes' CPU before and during the runs, steal, load), it
  // gets no verdict: the numbers are printed, the verdict says why there is none.
  const during = [];
  const steals = [];
  for (const rows of samples.values()) for (const r of rows) if (!r.error && r.otherCpu !== undefined) (during.push(r.otherCpu / 100), steals.push(r.steal ?? 0));
  for (const ratios of paired.values()) for (const r of ratios) for (const m of [r.target, r.base]) (during.push(m.otherCpu / 100), steals.push(m.steal ?? 0));
  const state = machineState({ probe, during, steals });
  results.machineState = state;
  const fewRounds = o.rounds < MIN_ROUNDS && (o.only.includes("throughput") || o.only.includes("sse"));
  const goals = [];
  /** A goal on two measures: `rate` and `cpu` are { ratio, pass, text }; memory goals have no CPU measure. */
  const goal = (name, rate, cpu) => {
    const pass = rate.pass && (cpu ? cpu.pass : true);
    const result = fewRounds && cpu ? `no verdict (${o.rounds} round${o.rounds === 1 ? "" : "s"} < ${MIN_ROUNDS})` : cpu ? verdict(pass, state) : pass ? "PASS" : "MISS";
    goals.push({ name, measured: rate.text, byCpu: cpu?.text, cpuLabel: cpu?.label, rate: rate.pass, cpu: cpu?.pass, pass, result, ...(rate.reference ? { reference: { rate: rate.reference, cpu: cpu?.reference } } : {}) });
  };
  const ratio = (r, base, times, { rate = "reqPerSec", cpu = "serverCpuUsPerReq", share = false } = {}) => {
    const byRate = r[rate] / base[rate];
    const byCpu = base[cpu] / r[cpu];
    const show = (x) => (share ? fmt.pct(100 * x) : fmt.x(x));
    return [
      { pass: byRate >= times, text: `${fmt.int(r[rate])} / ${fmt.int(base[rate])} = ${show(byRate)}` },
      { pass: byCpu >= times, label: rate === "reqPerSec" ? "CPU/req" : "CPU/event", text: `${base[cpu].toFixed(rate === "reqPerSec" ? 0 : 1)} / ${r[cpu].toFixed(rate === "reqPerSec" ? 0 : 1)} µs = ${show(byCpu)}` },
    ];
  };
  /**
   * A goal's two measures from its pair's segments (pairedSegments), or undefined without them: the median
   * of the segment ratios, with their middle half beside it.
   */
  const pairedRatio = (pair) => {
    const ratios = paired.get(pairKey(pair));
    if (!ratios?.length) return undefined;
    const show = (x) => (pair.share ? fmt.pct(100 * x) : fmt.x(x));
    const measure = (values, label) => {
      const m = median(values);
      const [low, high] = middleHalf(values);
      return { pass: m >= pair.times, ratio: m, label, text: `${show(m)} (median of ${values.length} segment pairs, middle half ${show(low)}–${show(high)})` };
    };
    return [measure(ratios.map((r) => r.rate), "req/s"), measure(ratios.map((r) => r.cpu), "CPU/req")];
  };
  // The message/send goals: on each pair's segments when they ran, else on the rows' medians (`--segments 0`).
  for (const pair of PAIRS) {
    const [r, base] = [get(pair.target, pair.payload), get(pair.base, pair.payload)];
    const name = `${LABEL[pair.target]} ≥ ${pair.goal} (${pair.payload})`;
    const rows = r && base ? ratio(r, base, pair.times, { share: pair.share }) : undefined;
    const byPairs = pairedRatio(pair);
    if (byPairs) goal(name, { ...byPairs[0], reference: rows?.[0].text }, { ...byPairs[1], reference: rows?.[1].text });
    else if (rows) goal(name, ...rows);
  }
  const sdkSse = results.sse.find((r) => r.target === "sdk" && !r.error);
  for (const target of ADAPTERS) {
    const r = results.sse.find((x) => x.target === target && !x.error);
    if (r && sdkSse) goal(`${LABEL[target]} SSE ≥ 1.5× SDK events/s`, ...ratio(r, sdkSse, 1.5, { rate: "eventsPerSec", cpu: "serverCpuUsPerEvent" }));
  }
  // Memory is not a rate: other processes do not change it, so its goals keep a verdict on a busy machine.
  const sdkMem = results.rss.find((r) => r.target === "sdk" && !r.error);
  for (const r of results.rss.filter((x) => x.target !== "sdk" && !x.error)) {
    if (!sdkMem) break;
    goal(`${LABEL[r.target]} heap after GC ≤ 0.75× SDK (${fmt.int(o.rssTasks)} tasks)`, { pass: r.heapUsedAfterGc <= 0.75 * sdkMem.heapUsedAfterGc, text: `${fmt.mib(r.heapUsedAfterGc)} / ${fmt.mib(sdkMem.heapUsedAfterGc)} = ${fmt.x(r.heapUsedAfterGc / sdkMem.heapUsedAfterGc)}` });
    goal(`${LABEL[r.target]} RSS after GC ≤ 0.75× SDK (${fmt.int(o.rssTasks)} tasks)`, { pass: r.rssAfterGc <= 0.75 * sdkMem.rssAfterGc, text: `${fmt.mib(r.rssAfterGc)} / ${fmt.mib(sdkMem.rssAfterGc)} = ${fmt.x(r.rssAfterGc / sdkMem.rssAfterGc)}` });
  }
  results.goals = goals;
  results.pairedSegments = Object.fromEntries(
    [...paired].map(([key, ratios]) => [key, ratios.map((r) => ({ rate: +r.rate.toFixed(4), cpu: +r.cpu.toFixed(4), targetReqPerSec: Math.round(r.target.reqPerSec), baseReqPerSec: Math.round(r.base.reqPerSec) }))]),
  );
  console.log(`\n${state.summary}`);
  if (goals.length) {
    console.log(
      `\ngoals (a rate goal PASSes only when both its req/s and its CPU-per-request medians pass; ${MIN_ROUNDS}+ interleaved rounds; none on a busy machine;` +
        (o.segments > 0 ? ` the message/send goals on paired segments: ${o.segments} per round, ${o.segmentDuration} s each):` : "):"),
    );
    for (const [key, error] of pairFailures) console.log(`  (pair ${key} failed: ${error}; its goal is judged on the rows' medians)`);
    const width = Math.max(...goals.map((g) => g.result.length));
    for (const g of goals) {
      const mark = (ok) => (ok === undefined ? "" : ok ? " ok" : " short");
      console.log(`  ${g.result.padEnd(width)}  ${g.name}: ${g.byCpu ? "rate " : ""}${g.measured}${mark(g.byCpu ? g.rate : undefined)}${g.byCpu ? `; ${g.cpuLabel} ${g.byCpu}${mark(g.cpu)}` : ""}`);
      if (g.reference?.rate) console.log(`  ${"".padEnd(width)}    (the rows' medians, for reference: ${g.reference.rate}; ${g.reference.cpu})`);
    }
    if (state.busy) console.log(`  (${BUSY_VERDICT}: ${state.reasons.join("; ")}; rerun on a quiet machine)`);
  }

  // Ceilings of the node:http and Fastify goals: what the adapter reaches over a stub core that does no A2A
  // work, and how much CPU per request that leaves the A2A work (envelope, validation, task runtime) at the
  // goal's rate. Server CPU per request scales as 1 / req/s at a fixed server CPU share, so the CPU a request
  // may cost at the goal's rate is the floor's CPU/req × the floor's req/s / the goal's req/s.
  const ceilings = [];
  for (const pair of PAIRS.filter((p) => FLOOR_OF[p.target] !== undefined)) {
    const [r, base, floor] = [get(pair.target, pair.payload), get(pair.base, pair.payload), get(FLOOR_OF[pair.target], pair.payload)];
    if (!r || !base || !floor) continue;
    const rate = pair.times * base.reqPerSec; // the req/s the goal asks for
    ceilings.push({
      target: pair.target,
      payload: pair.payload,
      goal: pair.goal,
      floorReqPerSec: floor.reqPerSec,
      floorCpuUs: floor.serverCpuUsPerReq,
      budgetUs: (floor.serverCpuUsPerReq * floor.reqPerSec) / rate - floor.serverCpuUsPerReq,
      a2aUs: r.serverCpuUsPerReq - floor.serverCpuUsPerReq,
      reachable: floor.reqPerSec >= rate,
    });
  }
  results.ceilings = ceilings;
  if (ceilings.length) {
    console.log("\nceilings (the adapter over a stub core that only parses and answers: what is left for the A2A work at each goal):");
    for (const c of ceilings) {
      const floorLine = `${LABEL[FLOOR_OF[c.target]]} ${fmt.int(c.floorReqPerSec)} req/s at ${c.floorCpuUs.toFixed(0)} µs CPU/req`;
      console.log(
        c.reachable
          ? `  ${LABEL[c.target]} ${c.payload} ≥ ${c.goal}: ${floorLine}; the A2A work may cost ${c.budgetUs.toFixed(0)} µs CPU/req, it costs ${c.a2aUs.toFixed(0)} µs`
          : `  UNREACHABLE  ${LABEL[c.target]} ${c.payload} ≥ ${c.goal}: ${floorLine}, short of the goal before any A2A work`,
      );
    }
  }

  // Optional: a CPU profile of one target under the same load
  results.profiles = [];
  for (const spec of o.profile ? o.profile.split(",") : []) {
    const [target, payload = "task"] = spec.split(":");
    if (!LABEL[target] || !["hello", "task", "sse"].includes(payload)) throw new Error(`--profile ${spec}: expected <target>:<hello|task|sse>`);
    const file = join(dir, `${target}-${payload}.cpuprofile`);
    console.log(
      payload === "sse"
        ? `\nCPU profile of ${LABEL[target] ?? target} under SSE load (${o.sseStreams} streams of ${o.sseEvents} events, ${o.sseDuration} s):`
        : `\nCPU profile of ${LABEL[target] ?? target} under ${payload} load (${o.duration} s, ${o.connections} connections):`,
    );
    await withServer(target, { burst: o.sseEvents }, async (server) => {
      const sse = payload === "sse";
      const load = () =>
        sse
          ? sseRun(server, { streams: o.sseStreams, seconds: o.sseDuration, events: o.sseEvents })
          : cannon(sendLoad(server.url, payload, o, { duration: o.duration }));
      if (sse) await sseRun(server, { streams: o.sseStreams, seconds: 0.5, events: o.sseEvents });
      else {
        await preflight(server, payload);
        await cannon(sendLoad(server.url, payload, o, { duration: o.warmup || 1 }));
      }
      await server.ask({ type: "profile-start" }, "profile-started");
      const r = await load();
      await server.ask({ type: "profile-stop", file }, "profile-stopped", 60_000);
      if (sse) console.log(`  (${fmt.int(r.eventsPerSec)} events/s while profiling; sampling adds overhead)`);
      else console.log(`  (${fmt.int(r.requests.total / r.duration)} req/s while profiling; sampling adds overhead)`);
    });
    const summary = summarize(JSON.parse(readFileSync(file, "utf8")));
    printSummary(summary, { top: 15 });
    const keep = join(tmpdir(), `a2a-server-bench-${target}-${payload}.cpuprofile`);
    copyFileSync(file, keep);
    console.log(`  profile kept at ${keep} (open in Chrome DevTools › Performance, or: node bench/server-profile.mjs ${keep})`);
    results.profiles.push({
      target,
      payload,
      file: keep,
      busyMs: summary.busyMs,
      areas: summary.areas.slice(0, 12).map(([area, ms]) => ({ area, ms: +ms.toFixed(1) })),
      self: summary.self.slice(0, 20).map(([fn, ms]) => ({ fn, ms: +ms.toFixed(1) })),
    });
  }

  results.loadAverage = { start: load0, end: loadavg()[0] };
  results.wallSeconds = (performance.now() - wall0) / 1000;
  console.log(`\nload average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)} (the bench itself keeps both cores busy); total ${results.wallSeconds.toFixed(0)} s`);
  if (o.write) {
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(RESULTS, JSON.stringify(results, null, 2) + "\n");
    writeReadmeSection("server", "Server", printed(), {
      command: `node bench/server.bench.mjs ${process.argv.slice(2).join(" ")}`.trim(),
      machine: `${m.cpus} × ${m.model}, ${m.memoryGiB} GiB, node ${m.node}, load ${load0.toFixed(2)} at the start`,
      state: results.machineState,
    });
    console.log(`wrote ${RESULTS.slice(ROOT.length + 1)} and bench/README.md`);
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
