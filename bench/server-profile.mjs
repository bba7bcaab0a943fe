// Summarizes a V8 .cpuprofile (from the inspector, written by bench/server-target.mjs) for the server
// benchmark: where the server process spends its time, by area and by function, with the generated
// runtime (the compiled copy of src/runtime) singled out.
//
//   node bench/server-profile.mjs <file.cpuprofile> [top]
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

const RUNTIME_AREA = "a2a runtime (src/runtime)";
const RUNTIME_FILE = /\/runtime\/(?:[\w-]+\/)*[\w-]+\.js$/;

/** The area a frame belongs to, from its script URL. */
export function areaOf(url, functionName) {
  if (!url) {
    if (functionName === "(garbage collector)") return "GC";
    if (functionName === "(idle)") return "idle";
    if (functionName === "(program)") return "V8/native (program)";
    return "native";
  }
  // The runtime is in folders by concern (runtime/tasks/publisher.js, runtime/stores/…): every depth counts.
  if (RUNTIME_FILE.test(url)) return RUNTIME_AREA;
  if (/validators\.ajv\.js$/.test(url)) return "a2a validators (Ajv standalone)";
  if (/\/server\/[\w-]+\.js$/.test(url) && !url.includes("node_modules")) return "a2a adapters (server/*.ts)";
  if (/\/(models|protocol|validators)\.js$/.test(url) && !url.includes("node_modules")) return "a2a generated glue";
  if (url.includes("server-target.mjs")) return "bench agent (executor)";
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (pkg) return `node_modules: ${pkg[1]}`;
  if (url.startsWith("node:")) return "node core (http, streams, net…)";
  return "other";
}

/** Self and inclusive time per function and self time per area, in ms; `runtimeKeys`: the functions of the runtime. */
export function summarize(profile) {
  const byId = new Map();
  for (const node of profile.nodes) byId.set(node.id, node);
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    // A runtime file by its path in the runtime (tasks/publisher.js), so that the same name in two folders stays apart.
    const runtime = RUNTIME_FILE.test(url) ? url.slice(url.lastIndexOf("/runtime/") + "/runtime/".length) : undefined;
    const file = url ? (runtime ?? basename(url.replace(/^file:\/\//, ""))) : "";
    return `${functionName || "(anonymous)"}${file ? ` ${file}:${lineNumber + 1}` : ""}`;
  };
  const self = new Map();
  const inclusive = new Map();
  const areas = new Map();
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  let total = 0;
  let idle = 0;
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const ms = (timeDeltas[i + 1] ?? timeDeltas[i] ?? 0) / 1000;
    let node = byId.get(samples[i]);
    if (!node) continue;
    total += ms;
    const { functionName, url } = node.callFrame;
    if (functionName === "(idle)") idle += ms;
    add(self, keyOf(node), ms);
    add(areas, areaOf(url, functionName), ms);
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      node = byId.get(id);
      const key = keyOf(node);
      if (seen.has(key)) continue;
      seen.add(key);
      add(inclusive, key, ms);
    }
  }
  const sorted = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]);
  const runtimeKeys = new Set(profile.nodes.filter((n) => RUNTIME_FILE.test(n.callFrame.url)).map(keyOf));
  return { totalMs: total, idleMs: idle, busyMs: total - idle, self: sorted(self), inclusive: sorted(inclusive), areas: sorted(areas), runtimeKeys };
}

export function printSummary(summary, { top = 15, log = console.log } = {}) {
  const pct = (ms) => `${((100 * ms) / summary.busyMs).toFixed(1).padStart(5)} %`;
  const msf = (ms) => `${ms.toFixed(0).padStart(6)} ms`;
  log(`  profiled ${summary.totalMs.toFixed(0)} ms, busy ${summary.busyMs.toFixed(0)} ms (percentages are of busy time)`);
  log("  self time by area:");
  for (const [area, ms] of summary.areas.filter(([a]) => a !== "idle").slice(0, 12)) log(`    ${msf(ms)} ${pct(ms)}  ${area}`);
  log(`  top ${top} functions by self time:`);
  for (const [key, ms] of summary.self.filter(([k]) => !k.startsWith("(idle)")).slice(0, top)) log(`    ${msf(ms)} ${pct(ms)}  ${key}`);
  const runtime = summary.inclusive.filter(([k]) => summary.runtimeKeys.has(k));
  log(`  top ${top} a2a runtime functions by inclusive time (callees included):`);
  for (const [key, ms] of runtime.slice(0, top)) log(`    ${msf(ms)} ${pct(ms)}  ${key}`);
  const runtimeSelf = summary.self.filter(([k]) => summary.runtimeKeys.has(k));
  log(`  top ${top} a2a runtime functions by self time:`);
  for (const [key, ms] of runtimeSelf.slice(0, top)) log(`    ${msf(ms)} ${pct(ms)}  ${key}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const file = process.argv[2];
  if (!file) {
    console.error("usage: node bench/server-profile.mjs <file.cpuprofile> [top]");
    process.exit(2);
  }
  printSummary(summarize(JSON.parse(readFileSync(file, "utf8"))), { top: Number(process.argv[3] ?? 15) });
}
