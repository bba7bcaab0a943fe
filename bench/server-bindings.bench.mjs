// SendMessage over HTTP+JSON (REST) and gRPC: the generated A2A 1.0.1 server against @a2a-js/sdk 1.3's REST
// (Express restHandler) and gRPC servers, same agent, same load, each server in its own process.
//
//   node bench/server-bindings.bench.mjs [--duration 10] [--warmup 2] [--connections 50] [--channels 4] [--grpc-load h2|grpc-js] [--json out.json] [--no-write]
//   node bench/server-bindings.bench.mjs --profile grpc [--payload hello] [--top 25]
//   node bench/server-bindings.bench.mjs --targets grpc,sdk-grpc --payloads hello   (a subset of the rows)
//
// --profile <target> (rest, grpc, sdk-rest, sdk-grpc, bare-rest, bare-grpc) runs only that server, under the V8 CPU profiler
// (node --cpu-prof), with the same load for one payload, and prints where the server process spent its time
// by area and by function (bench/server-profile.mjs); the .cpuprofile is kept for a viewer.
//
// Payloads: "hello" (a direct Message reply) and "task" (working, one artifact, completed). REST load is
// autocannon (POST /rest/message:send); gRPC load is node:http2 sessions speaking gRPC's framing on
// `channels` connections keeping `connections` unary calls in flight (--grpc-load grpc-js: grpc-js clients,
// which cost more CPU per call than the servers do and share their cores). Each row is measured after `warmup` seconds of the same load. Goal (issue 9): each binding ≥ 2× the SDK's same binding in req/s (PASS/MISS).
//
// The floor of each binding is measured in the same run: bare-rest (node:http alone, JSON in, a canned
// JSON reply out) and bare-grpc (grpc-js alone, the same proto through the same protobufjs, a canned reply
// encoded per call). No server of that binding can beat its floor on this machine, so when the floor is
// below 2× the SDK the goal cannot be met by our code alone; the bench says so under "Ceiling".
import { execFileSync, fork } from "node:child_process";
import http2 from "node:http2";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const autocannon = require("autocannon");
const grpc = require("@grpc/grpc-js");
const protobuf = require("protobufjs");

function parseArgs(argv) {
  const o = { duration: 10, warmup: 2, connections: 50, channels: 4, json: undefined, write: true, profile: undefined, payload: "hello", top: 25, targets: undefined, payloads: ["hello", "task"], grpcLoad: "h2" };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    if (key === "duration" || key === "connections" || key === "warmup" || key === "channels" || key === "top") o[key] = Number(argv[++i]);
    else if (key === "json" || key === "profile" || key === "payload") o[key] = argv[++i];
    else if (key === "grpc-load") {
      o.grpcLoad = argv[++i];
      if (o.grpcLoad !== "h2" && o.grpcLoad !== "grpc-js") throw new Error("--grpc-load takes h2 or grpc-js");
    }
    else if (key === "targets" || key === "payloads") o[key] = argv[++i].split(",");
    else if (key === "no-write") o.write = false;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

/** The generated 1.0.1 output with gRPC, compiled to JavaScript (dist/ must be built: npm run build). */
async function build() {
  const { generate, writeResult } = await import(pathToFileURL(join(ROOT, "dist", "generate.js")).href);
  // Outside node_modules (tsc emits nothing for files there).
  const src = mkdtempSync(join(tmpdir(), "a2a-bindings-bench-src-"));
  writeResult(await generate({ spec: "1.0.1", transports: ["jsonrpc", "grpc"], out: src, cwd: ROOT }), ROOT);
  writeFileSync(join(src, "package.json"), '{ "type": "module" }\n');
  const dir = mkdtempSync(join(tmpdir(), "a2a-bindings-bench-"));
  const tsc = join(ROOT, "node_modules", ".bin", "tsc");
  const entries = ["server/core.ts", "server/node.ts", "server/grpc.ts", "grpc.ts"].map((f) => join(src, f));
  execFileSync(tsc, ["--ignoreConfig", "--outDir", dir, "--rootDir", src, "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--noCheck", "--types", "node", ...entries], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  rmSync(src, { recursive: true, force: true });
  return dir;
}

async function start(target, dir, profileDir) {
  const execArgv = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : [];
  const child = fork(join(ROOT, "bench", "server-bindings-target.mjs"), [target, dir], { cwd: ROOT, execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let early;
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${target} did not start`)), 30_000);
    child.on("message", (m) => m.type === "ready" && (clearTimeout(timer), resolve(m.port)));
    early = (code) => reject(new Error(`${target} exited (${code})`));
    child.once("exit", early);
  });
  return { child, port, exited, stop: () => (child.off("exit", early), child.send({ type: "stop" })) };
}

/** The server process's CPU time so far (user + system), in µs. */
function cpuOf(server) {
  return new Promise((resolve) => {
    const on = (m) => m.type === "cpu" && (server.child.off("message", on), resolve(m.user + m.system));
    server.child.on("message", on);
    server.child.send({ type: "cpu" });
  });
}

/** One target under the CPU profiler: the load (after warm-up), then its profile summarized. */
async function profile(o, dir, root) {
  const profileDir = mkdtempSync(join(tmpdir(), "a2a-bindings-profile-"));
  const server = await start(o.profile, dir, profileDir);
  const binding = o.profile.includes("grpc") ? "gRPC" : "HTTP+JSON";
  const run = (opts) => (binding === "gRPC" ? grpcLoad(server.port, o.payload, opts, root) : restLoad(server.port, o.payload, opts));
  if (o.warmup > 0) await run({ ...o, duration: o.warmup });
  const r = await run(o);
  server.stop();
  await server.exited;
  const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no profile written in ${profileDir}`);
  const { summarize, printSummary } = await import(pathToFileURL(join(ROOT, "bench", "server-profile.mjs")).href);
  console.log(`${o.profile}, SendMessage "${o.payload}": ${Math.round(r.reqPerSec)} req/s (${r.errors} errors) under the profiler, ${o.duration} s\n`);
  printSummary(summarize(JSON.parse(readFileSync(join(profileDir, file), "utf8"))), { top: o.top });
  console.log(`\nprofile: ${join(profileDir, file)}`);
}

const restBody = (text, id) => JSON.stringify({ message: { messageId: id, role: "ROLE_USER", parts: [{ text }] } });
const okRest = (body) => /hello back|TASK_STATE_COMPLETED/.test(body);

async function restLoad(port, text, o) {
  const url = `http://127.0.0.1:${port}/rest/message:send`;
  const headers = { "content-type": "application/json", "a2a-version": "1.0" };
  const first = await fetch(url, { method: "POST", headers, body: restBody(text, "preflight") });
  const firstText = await first.text();
  if (!first.ok || !okRest(firstText)) throw new Error(`preflight: ${first.status} ${firstText.slice(0, 200)}`);
  let n = 0;
  const result = await autocannon({
    url,
    connections: o.connections,
    duration: o.duration,
    timeout: 10,
    requests: [{ method: "POST", headers, setupRequest: (req) => ({ ...req, body: restBody(text, `m-${n++}`) }) }],
  });
  return { reqPerSec: result.requests.average, errors: result.errors + result.non2xx + result.timeouts };
}

/** gRPC load: `connections` unary SendMessage calls kept in flight on `channels` HTTP/2 connections. */
function grpcLoad(port, text, o, root) {
  return o.grpcLoad === "grpc-js" ? grpcJsLoad(port, text, o, root) : h2GrpcLoad(port, text, o, root);
}

/** The load loop of both gRPC generators: `call(id, lane)` resolves to an Error or the response bytes. */
async function keepInFlight(o, call) {
  const first = await call("preflight", 0);
  if (first instanceof Error) throw new Error(`preflight: ${first.message}`);
  let ok = 0;
  let errors = 0;
  let n = 0;
  const until = Date.now() + o.duration * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.connections }, async (_, i) => {
      while (Date.now() < until) {
        const answer = await call(`m-${n++}`, i);
        if (answer instanceof Error) errors++;
        else ok++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { reqPerSec: ok / seconds, errors };
}

/**
 * The default gRPC load: node:http2 sessions speaking gRPC's framing (a 5-byte length prefix, the
 * application/grpc content type, grpc-status in the trailers). A grpc-js client spends more CPU per call
 * than the servers under test do, and on a 2-core machine it shares their cores: with it the gRPC rows
 * measured the client as much as the server (--grpc-load grpc-js still runs it).
 */
async function h2GrpcLoad(port, text, o, root) {
  const Request = root.lookupType("lf.a2a.v1.SendMessageRequest");
  const Response = root.lookupType("lf.a2a.v1.SendMessageResponse");
  const framed = (id) => {
    const message = Request.encode(Request.fromObject({ message: { message_id: id, role: 1, parts: [{ text }] } })).finish();
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    frame.set(message, 5);
    return frame;
  };
  const sessions = await Promise.all(
    Array.from({ length: Math.max(1, o.channels) }, () => new Promise((resolve, reject) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      session.once("connect", () => resolve(session));
      session.once("error", reject);
    })),
  );
  const headers = { ":method": "POST", ":path": "/lf.a2a.v1.A2AService/SendMessage", "content-type": "application/grpc", te: "trailers", "a2a-version": "1.0" };
  const call = (id, lane) =>
    new Promise((resolve) => {
      const stream = sessions[lane % sessions.length].request(headers);
      let status;
      const chunks = [];
      // A trailers-only answer (an error) carries grpc-status in its headers.
      stream.on("response", (h) => (status = h["grpc-status"] ?? status));
      stream.on("trailers", (t) => (status = t["grpc-status"] ?? status));
      stream.on("data", (chunk) => chunks.push(chunk));
      stream.on("end", () => resolve(status === "0" ? Buffer.concat(chunks) : new Error(`grpc-status ${status}`)));
      stream.on("error", (error) => resolve(error));
      stream.end(framed(id));
    });
  try {
    // The preflight's answer is decoded and checked, as the REST preflight checks its body.
    const first = await call("preflight-check", 0);
    if (first instanceof Error) throw new Error(`preflight: ${first.message}`);
    const answer = Response.toObject(Response.decode(first.subarray(5)), { enums: String });
    if (!/hello back|TASK_STATE_COMPLETED/.test(JSON.stringify(answer))) throw new Error(`preflight: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
    return await keepInFlight(o, call);
  } finally {
    for (const session of sessions) session.close();
  }
}

/** The gRPC load of grpc-js clients (the earlier default; --grpc-load grpc-js). */
async function grpcJsLoad(port, text, o, root) {
  const Request = root.lookupType("lf.a2a.v1.SendMessageRequest");
  const encode = (id) => Request.encode(Request.fromObject({ message: { message_id: id, role: 1, parts: [{ text }] } })).finish();
  const clients = Array.from({ length: Math.max(1, o.channels) }, () => new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 }));
  const metadata = new grpc.Metadata();
  metadata.set("a2a-version", "1.0");
  const call = (id, lane) =>
    new Promise((resolve) =>
      clients[lane % clients.length].makeUnaryRequest("/lf.a2a.v1.A2AService/SendMessage", (b) => Buffer.from(b), (b) => b, encode(id), metadata, { deadline: Date.now() + 10_000 }, (error, bytes) => resolve(error ? error : bytes)),
    );
  try {
    return await keepInFlight(o, call);
  } finally {
    for (const client of clients) client.close();
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const dir = await build();
  const { A2A_GRPC_BINDING } = await import(pathToFileURL(join(dir, "grpc.js")).href);
  const root = protobuf.Root.fromJSON(A2A_GRPC_BINDING.proto);
  if (o.profile) {
    try {
      await profile(o, dir, root);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  const machine = currentMachine();
  const rows = [];
  try {
    for (const payload of o.payloads) {
      for (const [binding, targets] of [["HTTP+JSON", ["bare-rest", "rest", "sdk-rest"]], ["gRPC", ["bare-grpc", "grpc", "sdk-grpc"]]]) {
        for (const target of targets.filter((t) => !o.targets || o.targets.includes(t))) {
          const server = await start(target, dir);
          try {
            const run = (opts) => (binding === "gRPC" ? grpcLoad(server.port, payload, opts, root) : restLoad(server.port, payload, opts));
            if (o.warmup > 0) await run({ ...o, duration: o.warmup });
            const cpuBefore = await cpuOf(server);
            const r = await run(o);
            // Server CPU per request: less sensitive than req/s to other load on a shared machine.
            const cpuUsPerReq = (await cpuOf(server)) - cpuBefore;
            rows.push({ payload, binding, target, ...r, cpuUsPerReq: cpuUsPerReq / Math.max(1, r.reqPerSec * o.duration) });
          } catch (error) {
            rows.push({ payload, binding, target, error: String(error?.message ?? error) });
          } finally {
            server.stop();
          }
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const printed = captureConsole();
  console.log(`SendMessage over HTTP+JSON and gRPC, ${o.connections} in flight (gRPC on ${o.channels} channels, load from ${o.grpcLoad === "h2" ? "node:http2" : "grpc-js clients"}), ${o.duration} s per row after ${o.warmup} s of warm-up\n`);
  console.log(["payload", "binding", "server", "req/s", "errors", "× SDK", "of floor", "server CPU µs/req"].join("\t"));
  const goals = [];
  const ceilings = [];
  const label = (target) => (target.startsWith("sdk-") ? "@a2a-js/sdk 1.3" : target.startsWith("bare-") ? (target === "bare-grpc" ? "bare grpc-js (floor)" : "bare node:http (floor)") : "a2a-codegen");
  for (const r of rows) {
    const ok = (x) => x && !x.error;
    const sdk = rows.find((x) => x.payload === r.payload && x.binding === r.binding && x.target.startsWith("sdk-"));
    const bare = rows.find((x) => x.payload === r.payload && x.binding === r.binding && x.target.startsWith("bare-"));
    const ratio = ok(r) && ok(sdk) && !r.target.startsWith("sdk-") ? r.reqPerSec / sdk.reqPerSec : undefined;
    const ofFloor = ok(r) && ok(bare) && !r.target.startsWith("bare-") ? `${Math.round((100 * r.reqPerSec) / bare.reqPerSec)} %` : "—";
    console.log([r.payload, r.binding, label(r.target), r.error ? `error: ${r.error}` : Math.round(r.reqPerSec), r.errors ?? "—", ratio === undefined ? "—" : `${ratio.toFixed(2)}×`, ofFloor, r.cpuUsPerReq === undefined ? "—" : Math.round(r.cpuUsPerReq)].join("\t"));
    if (ratio === undefined) continue;
    // Server CPU per request, the SDK's over this server's: the capacity ratio when the load generator, not the
    // server, sets the pace (the gRPC load is grpc-js clients in this process, on the same cores).
    const cpu = r.cpuUsPerReq > 0 && sdk.cpuUsPerReq > 0 ? `; server CPU/req ${Math.round(sdk.cpuUsPerReq)} / ${Math.round(r.cpuUsPerReq)} µs = ${(sdk.cpuUsPerReq / r.cpuUsPerReq).toFixed(2)}× less` : "";
    const measured = `${Math.round(r.reqPerSec)} / ${Math.round(sdk.reqPerSec)} = ${ratio.toFixed(2)}×${cpu}`;
    if (r.target.startsWith("bare-")) ceilings.push({ name: `${r.binding} (${r.payload})`, ratio, reachable: ratio >= 2, measured });
    else goals.push({ name: `${r.binding} ≥ 2× SDK req/s (${r.payload})`, measured, pass: ratio >= 2 });
  }
  console.log("\nGoals");
  for (const g of goals) console.log(`  ${g.pass ? "PASS" : "MISS"}  ${g.name}: ${g.measured}`);
  if (ceilings.length > 0) {
    console.log("\nCeiling (the bare floor of the binding against the SDK: what any server of that binding can reach here; req/s decides, CPU/req for reference)");
    for (const c of ceilings) console.log(`  ${c.reachable ? "reachable  " : "UNREACHABLE"}  ${c.name}: floor ${c.measured}${c.reachable ? "" : " < 2×: the goal cannot be met by our code alone"}`);
  }
  if (o.json) writeFileSync(o.json, JSON.stringify({ options: o, rows, goals, ceilings }, null, 2));
  // A run of every row writes its section of bench/README.md (a subset or --no-write does not).
  if (o.write && !o.targets && o.payloads.length === 2) {
    writeReadmeSection("server-bindings", "Server bindings (HTTP+JSON and gRPC)", printed(), { command: `node bench/server-bindings.bench.mjs ${process.argv.slice(2).join(" ")}`.trim(), machine: machineLine(machine) });
    console.log("wrote bench/README.md");
  }
}

await main();
