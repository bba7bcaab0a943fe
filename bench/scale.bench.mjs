// Generation at scale (issue 17, item 6): the bundled 0.3.0 schema plus 5,000 chained object definitions,
// generated in-process with one adapter; the goal is at most 15 s. The test suite checks that such a
// schema generates and compiles (test/product/generator-robustness.test.ts); how long it takes is measured here.
//
//   node bench/scale.bench.mjs [--definitions 5000] [--no-write]
//
// Run after `npm run build`. Prints wall and CPU time (CPU is steadier on a shared machine) and PASS/MISS.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const ROOT = resolve(import.meta.dirname, "..");
const GOAL_SECONDS = 15;

const args = process.argv.slice(2);
const count = Number(args[args.indexOf("--definitions") + 1] ?? 5000) || 5000;
const write = !args.includes("--no-write");

const printed = captureConsole();
const schema = JSON.parse(readFileSync(join(ROOT, "schema", "a2a-0.3.0.json"), "utf8"));
for (let i = 0; i < count; i++) {
  schema.definitions[`Extra${i}`] = {
    type: "object",
    description: `Extra definition ${i}.`,
    properties: { name: { type: "string" }, size: { type: "integer" }, ...(i + 1 < count ? { next: { $ref: `#/definitions/Extra${i + 1}` } } : {}) },
    required: ["name"],
  };
}
const dir = mkdtempSync(join(tmpdir(), "a2a-scale-bench-"));
try {
  const file = join(dir, "many.json");
  writeFileSync(file, JSON.stringify(schema));
  const { generate } = await import(pathToFileURL(join(ROOT, "dist", "index.js")).href);
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const result = await generate({ schema: file, out: join(dir, "out"), frameworks: ["node"] });
  const wall = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(`generation of the 0.3.0 schema + ${count} definitions (${result.ir.types.length} types): ${wall.toFixed(1)} s wall, ${cpuSeconds.toFixed(1)} s CPU; load ${loadavg()[0].toFixed(2)}`);
  console.log(`  ${wall <= GOAL_SECONDS ? "PASS" : "MISS"}  generation of ${count} extra definitions ≤ ${GOAL_SECONDS} s: ${wall.toFixed(1)} s`);
  if (write) writeReadmeSection("scale", "Generation at scale", printed(), { command: `node bench/scale.bench.mjs ${args.join(" ")}`.trim(), machine: machineLine(currentMachine()) });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
