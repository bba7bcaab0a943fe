import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FRAMEWORKS, type Framework } from "./options/vocabularies.js";

/** The package a framework's adapter imports (the node:http adapter and the web fetch handler import nothing). */
const FRAMEWORK_PACKAGES: Record<Exclude<Framework, "node" | "web">, string> = { express: "express", fastify: "fastify", hono: "hono" };

export interface DefaultFrameworks {
  frameworks: Framework[];
  /** The package.json they were read from, undefined when there is none (node:http only). */
  from: string | undefined;
}

/**
 * The server adapters to generate when neither the command line nor the config names them: node:http,
 * plus each framework the nearest package.json (from `dir` upwards) depends on, so that the output
 * compiles with what the project has installed. No package.json: node:http only.
 */
export function defaultFrameworks(dir: string): DefaultFrameworks {
  const file = nearestPackageJson(dir);
  if (file === undefined) return { frameworks: ["node"], from: undefined };
  let manifest: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) manifest = parsed as Record<string, unknown>;
  } catch {
    // An unreadable package.json names no framework.
  }
  const names = new Set<string>();
  for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
    const deps = manifest[field];
    if (typeof deps === "object" && deps !== null) for (const name of Object.keys(deps)) names.add(name);
  }
  const frameworks = FRAMEWORKS.filter((f) => f === "node" || (f !== "web" && names.has(FRAMEWORK_PACKAGES[f])));
  return { frameworks, from: file };
}

export function nearestPackageJson(dir: string): string | undefined {
  for (let current = resolve(dir); ; current = dirname(current)) {
    const candidate = join(current, "package.json");
    if (existsSync(candidate)) return candidate;
    if (dirname(current) === current) return undefined;
  }
}
