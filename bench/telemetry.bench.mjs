// Telemetry overhead (issues 34 and 37): the generated A2A 0.3.0 server (node:http adapter) in seven modes,
// each in its own process (bench/telemetry-target.mjs): plain (generated without --telemetry), off
// (generated with it, `telemetry: false`), off with the OpenTelemetry SDK registered, on with no SDK (the
// API's no-ops), on with the SDK registered (a span processor that drops spans, a metric reader never
// collected), and off and on with the SDK and OpenTelemetry's HTTP instrumentation (as an application
// with the SDK's auto-instrumentations runs: a span and an active context per request). For "hello" (a direct reply) and "task"
// (working, an artifact, completed) it measures req/s and the server's CPU time per request, modes
// interleaved round by round, and judges on the medians:
//
//   - off costs nothing measurable: off ≥ 95 % of plain;
//   - on with no SDK ≥ 90 % of off;
//   - on with an SDK ≥ 90 % of off with the same SDK (the SDK's own cost is the application's, not ours);
//     without an HTTP instrumentation, no context is ever entered in "off", so on Node 20 the
//     AsyncLocalStorage hooks that the first one turns on for every promise of the process count as ours;
//   - the same with the HTTP instrumentation, where "off" enters a context per request too.
//
// A goal passes only when it passes by req/s and by CPU per request; with fewer than 5 rounds, or on a busy
// machine (bench/machine-load.mjs), it gets no verdict.
//
//   node bench/telemetry.bench.mjs [--duration 5] [--warmup 2] [--rounds 5] [--connections 50] [--store memory|sqlite] [--modes plain,off,…]
//
// autocannon runs in this process. Prints a table and the verdicts; writes nothing.
import { execFileSync, fork } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { machineSample, machineState, othersBetween, quietProbe, verdict } from "./machine-load.mjs";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon");
const ROOT = resolve(import.meta.dirname, "..");
const ALL_MODES = ["plain", "off", "off-sdk", "noop", "sdk", "off-sdk-http", "sdk-http"];
const PAYLOADS = ["hello", "task"];
const MIN_ROUNDS = 5;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const duration = Number(option("duration", 5));
const warmup = Number(option("warmup", 2));
const rounds = Number(option("rounds", MIN_ROUNDS));
const connections = Number(option("connections", 50));
const store = option("store", "memory");
const MODES = option("modes", ALL_MODES.join(",")).split(",");
for (const mode of MODES) if (!ALL_MODES.includes(mode)) throw new Error(`--modes: ${mode} is not one of ${ALL_MODES.join(", ")}`);
if (store !== "memory" && store !== "sqlite") throw new Error(`--store ${store}: memory or sqlite`);

/** The 0.3.0 output generated with or without --telemetry (and the SQLite store when measured), compiled to JavaScript. */
function build(dir, telemetry) {
  const src = join(dir, "src");
  const flags = [...(telemetry ? ["--telemetry"] : []), ...(store === "sqlite" ? ["--store", "sqlite"] : [])];
  execFileSync(process.execPath, [join(ROOT, "dist", "cli.js"), "generate", "--spec", "0.3.0", "--framework", "node", ...flags, "--out", src, "--quiet"], { cwd: ROOT, stdio: "inherit" });
  writeFileSync(join(src, "package.json"), '{ "type": "module" }\n'); // compiled as ES modules
  const out = join(dir, "js");
  const entries = ["server/core.ts", "server/node.ts", ...(store === "sqlite" ? ["runtime/stores/sqlite.ts"] : [])].map((file) => join(src, file));
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["--ignoreConfig", "--outDir", out, "--rootDir", src, "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--noCheck", "--types", "node", ...entries],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, "node_modules"), join(out, "node_modules"), "dir");
  return out;
}

function start(mode, buildDir) {
  return new Promise((resolvePromise, reject) => {
    const child = fork(join(ROOT, "bench", "telemetry-target.mjs"), [mode, buildDir, store], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${mode} target exited with ${code}`)));
    const ask = (type) =>
      new Promise((answered) => {
        const on = (message) => {
          if (message.type !== type) return;
          child.off("message", on);
          answered(message);
        };
        child.on("message", on);
        child.send({ type });
      });
    child.on("message", (message) => {
      if (message.type === "ready") resolvePromise({ child, ask, url: `http://127.0.0.1:${message.port}/a2a` });
    });
  });
}

const body = (text) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text }] } } });

function cannon(url, text, seconds) {
  return new Promise((resolvePromise, reject) =>
    autocannon({ url, method: "POST", headers: { "content-type": "application/json" }, body: body(text), connections, duration: seconds }, (error, result) => (error ? reject(error) : resolvePromise(result))),
  );
}

/** One measured run: req/s, the server's CPU µs per request, and what other processes used meanwhile (cores). */
async function measure(server, text) {
  const before = await server.ask("cpu");
  const machineBefore = machineSample();
  const result = await cannon(server.url, text, duration);
  const machineAfter = machineSample();
  const after = await server.ask("cpu");
  if (result.errors + result.non2xx > 0) throw new Error(`${text}: ${result.errors} errors, ${result.non2xx} non-2xx`);
  const serverUs = after.user + after.system - before.user - before.system;
  const others = othersBetween(machineBefore, machineAfter, serverUs / 1000);
  return { rate: result.requests.total / (result.duration || duration), cpuUs: serverUs / Math.max(1, result.requests.total), others: others.othersCores, steal: others.steal };
}

const dir = mkdtempSync(join(tmpdir(), "a2a-telemetry-bench-"));
const runs = new Map(); // "mode:text" → runs
let probe;
try {
  const builds = { plain: build(join(dir, "plain"), false), telemetry: build(join(dir, "telemetry"), true) };
  probe = await quietProbe();
  for (let round = 0; round < rounds; round++) {
    // Modes rotate from round to round: none always runs first (or right after the same neighbour).
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]);
    for (const mode of order) {
      const server = await start(mode, mode === "plain" ? builds.plain : builds.telemetry);
      try {
        for (const text of PAYLOADS) {
          const check = await (await fetch(server.url, { method: "POST", headers: { "content-type": "application/json" }, body: body(text) })).json();
          if (!check.result) throw new Error(`${mode} answered ${text} with ${JSON.stringify(check).slice(0, 200)}`);
          if (warmup > 0) await cannon(server.url, text, warmup);
          const key = `${mode}:${text}`;
          runs.set(key, [...(runs.get(key) ?? []), await measure(server, text)]);
        }
      } finally {
        server.child.removeAllListeners("exit");
        server.child.send({ type: "stop" });
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const row = (mode, text) => {
  const r = runs.get(`${mode}:${text}`);
  return { rate: median(r.map((x) => x.rate)), cpuUs: median(r.map((x) => x.cpuUs)) };
};
const all = [...runs.values()].flat();
const state = machineState({ probe, during: all.map((r) => r.others), steals: all.map((r) => r.steal) });

console.log(`\ntelemetry overhead (A2A 0.3.0, node:http, ${store} store, ${connections} connections, ${duration} s after ${warmup} s of warm-up, ${rounds} round(s); medians)\n`);
console.log(`| payload | ${MODES.map((m) => ({ plain: "plain (no --telemetry)", off: "off", "off-sdk": "off, SDK registered", noop: "on, no SDK", sdk: "on, SDK (spans dropped)", "off-sdk-http": "off, SDK + HTTP instrumentation", "sdk-http": "on, SDK + HTTP instrumentation" })[m]).join(" | ")} |`);
console.log(`| --- | ${MODES.map(() => "---:").join(" | ")} |`);
for (const text of PAYLOADS) console.log(`| ${text} | ${MODES.map((m) => `${row(m, text).rate.toFixed(0)} req/s, ${row(m, text).cpuUs.toFixed(0)} µs`).join(" | ")} |`);

const GOALS = [
  { name: "off costs nothing measurable", mode: "off", base: "plain", share: 0.95 },
  { name: "on, no SDK", mode: "noop", base: "off", share: 0.9 },
  { name: "on, SDK", mode: "sdk", base: "off-sdk", share: 0.9 },
  { name: "on, SDK + HTTP instrumentation", mode: "sdk-http", base: "off-sdk-http", share: 0.9 },
].filter((goal) => MODES.includes(goal.mode) && MODES.includes(goal.base));
console.log(`\n${state.summary}\n`);
console.log("| goal | payload | by req/s | by CPU/request | verdict |");
console.log("| --- | --- | ---: | ---: | --- |");
for (const goal of GOALS) {
  for (const text of PAYLOADS) {
    const r = row(goal.mode, text);
    const b = row(goal.base, text);
    const byRate = r.rate / b.rate;
    const byCpu = b.cpuUs / r.cpuUs;
    const pass = byRate >= goal.share && byCpu >= goal.share;
    const result = rounds < MIN_ROUNDS ? `no verdict (${rounds} round${rounds === 1 ? "" : "s"} < ${MIN_ROUNDS})` : verdict(pass, state);
    const pct = (x) => `${(100 * x).toFixed(0)} %`;
    console.log(`| ${goal.name}: ${goal.mode} ≥ ${pct(goal.share)} of ${goal.base} | ${text} | ${pct(byRate)} | ${pct(byCpu)} | ${result} |`);
  }
}
