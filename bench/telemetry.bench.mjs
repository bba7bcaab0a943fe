// Telemetry overhead: the generated A2A 0.3.0 server (node:http adapter), generated with --telemetry, with
// telemetry off (with and without the OpenTelemetry SDK registered), on with no SDK (the API's no-ops), and
// on with the SDK registered (a span processor that drops spans, a metric reader never collected): hello
// and task throughput of each; the share of on to off, without an SDK and with one (issue 34: ≥ 90 %).
//
//   node bench/telemetry.bench.mjs [--duration 5] [--rounds 1] [--connections 50]
//
// Each mode runs in its own child process (bench/telemetry-target.mjs); autocannon runs in this one.
// Prints a table; writes nothing.
import { execFileSync, fork } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const require = createRequire(import.meta.url);
const autocannon = require("autocannon");
const ROOT = resolve(import.meta.dirname, "..");
const MODES = ["off", "off-sdk", "noop", "sdk"];

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const duration = option("duration", 5);
const rounds = option("rounds", 1);
const connections = option("connections", 50);

/** The 0.3.0 output generated with --telemetry, compiled to JavaScript. */
function build() {
  const dir = mkdtempSync(join(tmpdir(), "a2a-telemetry-bench-"));
  const src = join(dir, "src");
  execFileSync(process.execPath, [join(ROOT, "dist", "cli.js"), "generate", "--spec", "0.3.0", "--framework", "node", "--telemetry", "--out", src, "--quiet"], { cwd: ROOT, stdio: "inherit" });
  writeFileSync(join(src, "package.json"), '{ "type": "module" }\n'); // compiled as ES modules
  const out = join(dir, "js");
  execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["--ignoreConfig", "--outDir", out, "--rootDir", src, "--module", "NodeNext", "--moduleResolution", "NodeNext", "--target", "ES2022", "--skipLibCheck", "--noCheck", "--types", "node", join(src, "server", "core.ts"), join(src, "server", "node.ts")],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
  symlinkSync(join(ROOT, "node_modules"), join(out, "node_modules"), "dir");
  return { dir, out };
}

function start(mode, buildDir) {
  return new Promise((resolvePromise, reject) => {
    const child = fork(join(ROOT, "bench", "telemetry-target.mjs"), [mode, buildDir], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${mode} target exited with ${code}`)));
    child.on("message", (message) => {
      if (message.type === "ready") resolvePromise({ child, url: `http://127.0.0.1:${message.port}/a2a` });
    });
  });
}

const body = (text) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: "m-1", role: "user", parts: [{ kind: "text", text }] } } });

function cannon(url, text) {
  return new Promise((resolvePromise, reject) =>
    autocannon({ url, method: "POST", headers: { "content-type": "application/json" }, body: body(text), connections, duration }, (error, result) => (error ? reject(error) : resolvePromise(result))),
  );
}

const { dir, out } = build();
const rates = new Map();
try {
  for (let round = 0; round < rounds; round++) {
    for (const mode of MODES) {
      const { child, url } = await start(mode, out);
      try {
        for (const text of ["hello", "task"]) {
          const check = await (await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: body(text) })).json();
          if (!check.result) throw new Error(`${mode} answered ${text} with ${JSON.stringify(check).slice(0, 200)}`);
          await cannon(url, text).then(() => undefined, () => undefined); // warm-up
          const result = await cannon(url, text);
          if (result.errors + result.non2xx > 0) throw new Error(`${mode} ${text}: ${result.errors} errors, ${result.non2xx} non-2xx`);
          const key = `${mode}:${text}`;
          rates.set(key, [...(rates.get(key) ?? []), result.requests.average]);
        }
      } finally {
        child.removeAllListeners("exit");
        child.send({ type: "stop" });
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`\ntelemetry overhead (A2A 0.3.0, node:http, ${connections} connections, ${duration} s, ${rounds} round(s); req/s, median)\n`);
console.log("| payload | off | off, SDK registered | on, no SDK | on, SDK (spans dropped) | on / off, no SDK | on / off, SDK |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const text of ["hello", "task"]) {
  const [off, offSdk, noop, sdk] = MODES.map((mode) => median(rates.get(`${mode}:${text}`)));
  const share = (x, of) => `${((100 * x) / of).toFixed(0)} %`;
  console.log(`| ${text} | ${off.toFixed(0)} | ${offSdk.toFixed(0)} | ${noop.toFixed(0)} | ${sdk.toFixed(0)} | ${share(noop, off)} | ${share(sdk, offSdk)} |`);
}
