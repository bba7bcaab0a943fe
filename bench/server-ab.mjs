// A/B of the generated server against an earlier revision's, under the same load, interleaved round by
// round (A, B, A, B…), so that a busy machine slows both alike: server CPU time per request (the measure
// that holds up on a shared machine) and req/s, median of the rounds. For one change's effect.
//
//   node bench/server-ab.mjs [--base <git revision>] [--target node|express|fastify|hono] [--rounds 3] [--duration 3]
//                            [--payloads hello,task,sse]
//
// sse: 4 concurrent message/stream requests of 1,000 artifact chunks each, again and again for the
// duration (as bench/server.bench.mjs's SSE row): server CPU time per event.
// --base (default HEAD): its generated/a2a-0.3.0 (git archive) is B's; the working tree's is A's.
// Never writes bench/README.md (bench/server.bench.mjs does, for the whole picture).
import { execFileSync, fork } from "node:child_process";
import { Agent } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compileFolder, serverEntries } from "./compile-generated.mjs";
import { oneStream } from "./sse-stream.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const GENERATED = join("generated", "a2a-0.3.0");
const require = createRequire(import.meta.url);
const autocannon = require("autocannon");

function parseArgs(argv) {
  const o = { base: "HEAD", target: "node", rounds: 3, duration: 3, connections: 50, payloads: ["hello", "task"] };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=");
    const value = () => inline ?? argv[++i];
    if (name === "--base") o.base = value();
    else if (name === "--target") o.target = value();
    else if (name === "--rounds") o.rounds = Number(value());
    else if (name === "--duration") o.duration = Number(value());
    else if (name === "--connections") o.connections = Number(value());
    else if (name === "--payloads") o.payloads = value().split(",");
    else throw new Error(`unknown option ${argv[i]}`);
  }
  for (const p of o.payloads) if (!["hello", "task", "sse"].includes(p)) throw new Error(`--payloads: hello, task or sse, not ${p}`);
  if (!["node", "express", "fastify", "hono"].includes(o.target)) throw new Error(`--target: node, express, fastify or hono, not ${o.target}`);
  return o;
}

/** The generated folder compiled to JavaScript, as bench/server.bench.mjs builds it. */
function build(generated, work) {
  const out = join(work, "build");
  compileFolder(generated, serverEntries(generated), out);
  return out;
}

/** The base revision's generated folder, from git, in `work` (ESM like the project). */
function checkoutBase(rev, work) {
  const dir = join(work, "src");
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync("git", ["archive", rev, GENERATED], { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  return join(dir, GENERATED);
}

function startTarget(target, dir) {
  const child = fork(join(ROOT, "bench", "server-target.mjs"), [target, dir, "1000"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const waiters = [];
  child.on("message", (m) => {
    const i = waiters.findIndex((w) => w.type === m.type);
    if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
  });
  const wait = (type) => new Promise((done) => waiters.push({ type, resolve: done }));
  return wait("ready").then(({ port }) => ({
    url: `http://127.0.0.1:${port}/a2a`,
    cpu: () => {
      const answer = wait("cpu");
      child.send({ type: "cpu" });
      return answer;
    },
    stop: () =>
      new Promise((done) => {
        child.once("exit", done);
        child.send({ type: "stop" });
      }),
  }));
}

const body = (text, id) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "message/send", params: { message: { kind: "message", role: "user", messageId: `m-${id}`, parts: [{ kind: "text", text }] }, configuration: { acceptedOutputModes: ["text/plain"] } } });

function load(url, text, seconds, connections) {
  let n = 0;
  return new Promise((done, fail) =>
    autocannon(
      { url, connections, duration: seconds, requests: [{ method: "POST", headers: { "content-type": "application/json" }, setupRequest: (req) => ({ ...req, body: body(text, `r${n++}`) }) }] },
      (error, result) => (error ? fail(error) : done(result)),
    ),
  );
}

/** The SSE row's request, as bench/server.bench.mjs sends it: the "burst" agent's 1,000 chunks. */
const STREAM_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: "1",
  method: "message/stream",
  params: { message: { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text: "burst" }] }, configuration: { acceptedOutputModes: ["text/plain"] } },
});

/** `streams` concurrent streams, each started again as it ends, for `seconds`: events read. */
async function streamLoad(url, seconds, streams = 4) {
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const deadline = performance.now() + seconds * 1000;
  let events = 0;
  await Promise.all(
    Array.from({ length: streams }, async () => {
      do {
        const n = await oneStream(url, agent, STREAM_BODY); // not `events += await …`: that reads `events` before the wait
        events += n;
      } while (performance.now() < deadline);
    }),
  );
  agent.destroy();
  return events;
}

async function measure(target, dir, text, o) {
  const server = await startTarget(target, dir);
  try {
    if (text === "sse") {
      await streamLoad(server.url, 0.5);
      const t0 = performance.now();
      const before = await server.cpu();
      const events = await streamLoad(server.url, o.duration);
      const after = await server.cpu();
      // "req/s" and "CPU/req" of an SSE row are events/s and CPU per event.
      return { rps: (events * 1000) / (performance.now() - t0), us: (after.user + after.system - before.user - before.system) / Math.max(1, events) };
    }
    await load(server.url, text, 1, o.connections);
    const before = await server.cpu();
    const result = await load(server.url, text, o.duration, o.connections);
    const after = await server.cpu();
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target} ${text}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return { rps: result.requests.average, us: (after.user + after.system - before.user - before.system) / Math.max(1, result.requests.total) };
  } finally {
    await server.stop();
  }
}

/** How a row reads: requests, or the events of the SSE row (a few µs each: two decimals). */
const unit = (text) => (text === "sse" ? { rate: "events/s", per: "event", digits: 2 } : { rate: "req/s", per: "req", digits: 0 });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const o = parseArgs(process.argv.slice(2));
const work = mkdtempSync(join(tmpdir(), "a2a-server-ab-"));
try {
  const sides = { A: build(join(ROOT, GENERATED), join(work, "a")), B: build(checkoutBase(o.base, join(work, "b")), join(work, "b")) };
  if (!existsSync(join(sides.B, "server", "core.js"))) throw new Error(`${o.base}: no ${GENERATED}/server/core.ts`);
  console.log(`A = working tree, B = ${o.base}; target ${o.target}, ${o.rounds} rounds of ${o.duration} s, ${o.connections} connections`);
  const rows = {};
  for (let round = 0; round < o.rounds; round++) {
    for (const text of o.payloads) {
      for (const side of ["A", "B"]) {
        const r = await measure(o.target, sides[side], text, o);
        (rows[`${text} ${side}`] ??= []).push(r);
        console.log(`  round ${round + 1} ${text.padEnd(5)} ${side}: ${r.rps.toFixed(0).padStart(6)} ${unit(text).rate} ${r.us.toFixed(unit(text).digits).padStart(5)} µs CPU/${unit(text).per}`);
      }
    }
  }
  console.log("\nmedians:");
  for (const text of o.payloads) {
    const [a, b] = ["A", "B"].map((s) => ({ rps: median(rows[`${text} ${s}`].map((r) => r.rps)), us: median(rows[`${text} ${s}`].map((r) => r.us)) }));
    const { rate, per, digits } = unit(text);
    console.log(`  ${text.padEnd(5)} A ${a.us.toFixed(digits).padStart(5)} µs/${per} ${a.rps.toFixed(0).padStart(6)} ${rate} | B ${b.us.toFixed(digits).padStart(5)} µs/${per} ${b.rps.toFixed(0).padStart(6)} ${rate} | A/B CPU per ${per} ${(a.us / b.us).toFixed(2)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
