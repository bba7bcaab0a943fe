// Client benchmark: calls per second of the generated A2A client against a bare node:http echo (so that the
// client, not the server, is what is measured), beside @a2a-js/sdk's client on the same echo, for A2A 0.3.0
// (@a2a-js/sdk 0.3.x) and 1.0.1 (@a2a-js/sdk 1.x). Each call is a blocking SendMessage answered with a
// direct message reply.
//
//   node bench/client.bench.mjs [--versions 0.3.0,1.0.1] [--duration 3] [--concurrency 16] [--rounds 5] [--no-write] [--profile]
//
// The echo runs in its own child process (bench/server-target.mjs bare); the clients run in this process,
// their rounds alternating, each for --rounds rounds of --duration seconds with --concurrency calls in
// flight (the median round is kept). Beside calls/s, each row shows the CPU time per call of the client's
// process and of the echo's (medians too): on a shared machine calls/s swing with the load, CPU per call
// much less. --profile adds, after them, a round of the generated client under a CPU profile (not counted),
// written to <tmpdir>/a2a-client-bench-<version>.cpuprofile. Run after `npm run build`. See bench/README.md, section "Client".
import { fork } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { compileGenerated } from "./compile-generated.mjs";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const TARGET_SCRIPT = join(ROOT, "bench", "server-target.mjs");
const RESULTS = join(ROOT, "bench", "results", "client-latest.json");
const PROFILE = (version) => join(tmpdir(), `a2a-client-bench-${version}.cpuprofile`);
/** The goal of issue 12: the generated client makes at least this many times the SDK client's calls/s. */
const GOAL = 2;

function parseArgs(argv) {
  const o = { versions: ["0.3.0", "1.0.1"], duration: 3, concurrency: 16, rounds: 5, write: true, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const [name, inline] = argv[i].split("=");
    const value = () => inline ?? argv[++i];
    if (name === "--versions") o.versions = value().split(",");
    else if (name === "--duration") o.duration = Number(value());
    else if (name === "--concurrency") o.concurrency = Number(value());
    else if (name === "--rounds") o.rounds = Number(value());
    else if (name === "--no-write") o.write = false;
    else if (name === "--profile") o.profile = true;
    else if (name === "--help" || name === "-h") {
      console.log(readFileSync(new URL(import.meta.url), "utf8").split("\n").slice(0, 14).join("\n"));
      process.exit(0);
    } else throw new Error(`unknown option ${argv[i]}`);
  }
  return o;
}

const build = (version) => compileGenerated(version, ["index.ts"], "a2a-client-bench-");

/** The bare echo in a child process (it answers both versions' SendMessage shapes). */
async function startEcho() {
  const child = fork(TARGET_SCRIPT, ["bare", tmpdir(), "1"], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise((resolve, reject) => {
    child.once("message", (m) => (m.type === "ready" ? resolve(m.port) : reject(new Error(JSON.stringify(m)))));
    child.once("exit", (code) => reject(new Error(`echo exited (${code})`)));
  });
  /** The echo's CPU time so far (µs, user + system). */
  const cpu = () =>
    new Promise((resolve) => {
      const onMessage = (m) => {
        if (m.type !== "cpu") return;
        child.off("message", onMessage);
        resolve(m.user + m.system);
      };
      child.on("message", onMessage);
      child.send({ type: "cpu" });
    });
  return {
    url: `http://127.0.0.1:${port}/a2a`,
    cpu,
    stop: () => {
      child.send({ type: "stop" });
      return new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

function cardFor(version, url) {
  const common = {
    name: "Echo",
    description: "The bench's bare echo",
    version: "1.0.0",
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["bench"] }],
  };
  return version.startsWith("1.")
    ? { ...common, supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }] }
    : { ...common, url, protocolVersion: "0.3.0", preferredTransport: "JSONRPC" };
}

/** Each contender: make(url) → a function that makes one call and checks its answer. */
async function contenders(version, dir, url) {
  const v1 = version.startsWith("1.");
  const ours = await import(pathToFileURL(join(dir, "index.js")).href);
  const client = new ours.A2AClient(url);
  const send = (client.sendMessage ?? client.sendMessageRpc).bind(client);
  const params = ours.A2AClient.sendParams("hello");
  const ourCall = async () => {
    const r = await send(params);
    const message = v1 ? r.message : r;
    if (!message?.parts?.[0]?.text) throw new Error(`unexpected answer ${JSON.stringify(r).slice(0, 200)}`);
  };
  const sdkModule = await import(v1 ? "a2a-sdk-v1/client" : "@a2a-js/sdk/client");
  const sdk = await new sdkModule.ClientFactory().createFromAgentCard(cardFor(version, url));
  const sdkMessage = v1
    ? { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hello" }] }
    : { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text: "hello" }] };
  let n = 0;
  const sdkCall = async () => {
    const r = await sdk.sendMessage({ message: { ...sdkMessage, messageId: `m-${n++}` } });
    // The 1.x SDK client answers its own internal shapes (a part is `{ content: { $case, value } }`).
    const part = (r?.parts ?? r?.message?.parts)?.[0];
    if (!(part?.text ?? part?.content?.value)) throw new Error(`unexpected answer ${JSON.stringify(r).slice(0, 200)}`);
  };
  return { "a2a-codegen client": ourCall, [`@a2a-js/sdk ${v1 ? "1.x" : "0.3"} client`]: sdkCall };
}

/** One round: calls/s, and the CPU µs per call of this process (the client) and of the echo. */
async function round(call, { duration, concurrency }, echo) {
  const echo0 = echo ? await echo.cpu() : 0;
  const cpu0 = process.cpuUsage();
  const end = performance.now() + duration * 1000;
  let calls = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await call();
        calls++;
      }
    }),
  );
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const echoCpu = echo ? (await echo.cpu()) - echo0 : 0;
  return { rate: (calls * 1000) / elapsed, clientUs: (cpu.user + cpu.system) / calls, echoUs: echoCpu / calls };
}

/** Runs `body` under an inspector CPU profile written to `file`. */
async function profiled(file, body) {
  const inspector = await import("node:inspector/promises");
  const session = new inspector.Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.start");
  try {
    return await body();
  } finally {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const printed = captureConsole();
  const echo = await startEcho();
  const results = { date: new Date().toISOString(), machine: currentMachine(), options: o, versions: {}, goals: [] };
  console.log(`client benchmark: ${o.concurrency} calls in flight, ${o.rounds} × ${o.duration} s per client, against a bare node:http echo; load ${loadavg()[0].toFixed(2)}\n`);
  try {
    for (const version of o.versions) {
      const dir = build(version);
      try {
        const all = await contenders(version, dir, echo.url);
        const rows = {};
        const entries = Object.entries(all);
        for (const [, call] of entries) {
          await call(); // preflight: a failing client must not be measured
          await round(call, { duration: 0.5, concurrency: o.concurrency });
        }
        // The clients' rounds alternate (the order rotating), so that a shared machine's load spreads over
        // both instead of landing on one of them.
        const rounds = Object.fromEntries(entries.map(([name]) => [name, []]));
        for (let r = 0; r < o.rounds; r++) {
          for (let i = 0; i < entries.length; i++) {
            const [name, call] = entries[(i + r) % entries.length];
            rounds[name].push(await round(call, o, echo));
          }
        }
        // A profiled round of the generated client after the measured ones (the profiler's cost in no row).
        if (o.profile) {
          await profiled(PROFILE(version), () => round(entries[0][1], o));
          console.log(`  (CPU profile of the generated client: ${PROFILE(version)})`);
        }
        const cpu = {};
        for (const [name] of entries) {
          rows[name] = median(rounds[name].map((x) => x.rate));
          cpu[name] = { clientUs: median(rounds[name].map((x) => x.clientUs)), echoUs: median(rounds[name].map((x) => x.echoUs)) };
          console.log(
            `  A2A ${version}  ${name.padEnd(26)} ${Math.round(rows[name]).toLocaleString("en-US").padStart(7)} calls/s   CPU per call: client ${Math.round(cpu[name].clientUs)} µs, echo ${Math.round(cpu[name].echoUs)} µs`,
          );
        }
        const [ourCpu, sdkCpu] = Object.values(cpu);
        // For information (the goal is on calls/s): the clients' own cost, which the shared cores do not blur.
        console.log(`  A2A ${version}  the SDK client's CPU per call is ${(sdkCpu.clientUs / ourCpu.clientUs).toFixed(2)}× the generated client's`);
        const [ours, sdk] = Object.values(rows);
        results.versions[version] = rows;
        results.cpuPerCall = { ...results.cpuPerCall, [version]: cpu };
        const ratio = ours / sdk;
        results.goals.push({ name: `A2A ${version}: generated client ≥ ${GOAL}× the SDK client's calls/s`, measured: `${ratio.toFixed(2)}×`, pass: ratio >= GOAL });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await echo.stop();
  }
  console.log("\ngoals:");
  for (const g of results.goals) console.log(`  ${g.pass ? "PASS" : "MISS"}  ${g.name}: ${g.measured}`);
  if (o.write) {
    writeFileSync(RESULTS, `${JSON.stringify(results, null, 2)}\n`);
    writeReadmeSection("client", "Client", printed(), { command: `node bench/client.bench.mjs ${process.argv.slice(2).join(" ")}`.trim(), machine: machineLine(results.machine) });
    console.log(`wrote ${RESULTS.slice(ROOT.length + 1)} and bench/README.md`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
