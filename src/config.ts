import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CodegenError } from "./errors.js";
import type { GenerateOptions } from "./generate.js";
import { isObject } from "./schema/json.js";
import { bundledVersions, parseJson } from "./schema/load.js";
import { FRAMEWORKS } from "./emit/framework-names.js";

/** The names a config file is looked for under, in this order, in the working folder. */
export const CONFIG_FILES = ["a2a-codegen.config.json", "a2a-codegen.config.mjs", "a2a-codegen.config.js"];

/** One generation: what to read and where to write. Paths are relative to the config file's folder. */
export interface TargetConfig {
  spec?: string;
  schema?: string;
  overlay?: string;
  out?: string;
  templates?: string;
  /** The agent card JSON file, validated and emitted as card.ts. */
  card?: string;
  /** The server adapters to generate: any of node, express, fastify, hono (default: node, plus the frameworks of the nearest package.json). */
  frameworks?: string[];
  /** An older bundled version served too, e.g. "0.3.0" beside 1.0.1. */
  compat?: string;
  /** Store engines to add: any of postgres, redis (default: none, in-memory only). */
  stores?: string[];
  /** The protocol bindings: any of jsonrpc, rest, grpc (default: JSON-RPC only). */
  transports?: string[];
  /** Also emit runtime/card-signature.ts (sign and verify agent cards). */
  cardSignatures?: boolean;
}

/** The config file: one target, or several under `targets` (top-level keys are defaults for each). */
export interface Config extends TargetConfig {
  targets?: TargetConfig[];
}

const TARGET_KEYS = ["spec", "schema", "overlay", "out", "templates", "card", "frameworks", "compat", "stores", "transports", "cardSignatures"] as const;
const PATH_KEYS = ["schema", "overlay", "out", "templates", "card"] as const;

export interface LoadedConfig {
  file: string;
  /** Each target as generate() options, paths resolved against the config's folder. */
  targets: GenerateOptions[];
}

/** Finds and reads the config: the given path, else the first of CONFIG_FILES in `cwd`; undefined when none. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LoadedConfig | undefined> {
  let file: string | undefined;
  if (explicit !== undefined) {
    file = resolve(cwd, explicit);
    if (!existsSync(file)) throw new CodegenError("config file not found", { file: explicit });
  } else {
    file = CONFIG_FILES.map((name) => resolve(cwd, name)).find((path) => existsSync(path));
    if (file === undefined) return undefined;
  }
  const display = explicit ?? file;
  let raw: unknown;
  if (/\.(mjs|js)$/.test(file)) {
    try {
      const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
      raw = mod.default;
    } catch (error) {
      throw new CodegenError(`cannot load the config module: ${(error as Error).message}`, { file: display, cause: error });
    }
  } else {
    raw = parseJson(readFileSync(file, "utf8"), display);
  }
  return { file, targets: parseConfig(raw, display, dirname(file)) };
}

export function parseConfig(raw: unknown, file: string, baseDir: string): GenerateOptions[] {
  if (!isObject(raw)) throw new CodegenError("the config must be an object", { file, pointer: "" });
  const readTarget = (value: unknown, pointer: string): TargetConfig => {
    if (!isObject(value)) throw new CodegenError("a target must be an object", { file, pointer });
    const target: TargetConfig = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === "targets" && pointer === "" ) continue;
      if (key === "$schema" || key === "$comment") continue;
      if (!(TARGET_KEYS as readonly string[]).includes(key)) {
        throw new CodegenError(`unknown key "${key}"; allowed: ${[...TARGET_KEYS, "targets"].join(", ")}`, { file, pointer: `${pointer}/${key}` });
      }
      if (key === "frameworks" || key === "transports") {
        if (!Array.isArray(v) || !v.every((f) => typeof f === "string")) {
          throw new CodegenError(`"${key}" must be an array of ${key === "frameworks" ? "framework" : "transport"} names`, { file, pointer: `${pointer}/${key}` });
        }
        if (key === "frameworks") {
          const unknown = v.findIndex((f) => !(FRAMEWORKS as readonly string[]).includes(f as string));
          if (unknown >= 0) throw new CodegenError(`unknown framework "${String(v[unknown])}"; frameworks: ${FRAMEWORKS.join(", ")}`, { file, pointer: `${pointer}/${key}/${unknown}` });
        }
        target[key] = v as string[];
        continue;
      }
      if (key === "cardSignatures") {
        if (typeof v !== "boolean") throw new CodegenError('"cardSignatures" must be true or false', { file, pointer: `${pointer}/${key}` });
        target.cardSignatures = v;
        continue;
      }
      if (key === "stores") {
        if (!Array.isArray(v) || !v.every((f) => typeof f === "string")) {
          throw new CodegenError('"stores" must be an array of store engines (postgres, redis)', { file, pointer: `${pointer}/${key}` });
        }
        target.stores = v as string[];
        continue;
      }
      if (typeof v !== "string" || v === "") throw new CodegenError(`"${key}" must be a non-empty string`, { file, pointer: `${pointer}/${key}` });
      if (key === "spec" && !bundledVersions().includes(v)) {
        throw new CodegenError(`unknown spec version "${v}"; bundled versions: ${bundledVersions().join(", ")}`, { file, pointer: `${pointer}/${key}` });
      }
      target[key as Exclude<(typeof TARGET_KEYS)[number], "frameworks" | "stores" | "transports" | "cardSignatures">] = v;
    }
    return target;
  };
  const defaults = readTarget(raw, "");
  const list = raw.targets === undefined ? [defaults] : raw.targets;
  if (!Array.isArray(list) || list.length === 0) {
    throw new CodegenError('"targets" must be a non-empty array of targets', { file, pointer: "/targets" });
  }
  return list.map((entry, i) => {
    const merged = raw.targets === undefined ? defaults : { ...defaults, ...readTarget(entry, `/targets/${i}`) };
    const path = (p: string | undefined) => (p === undefined ? undefined : resolve(baseDir, p));
    const options: GenerateOptions = { spec: merged.spec, cwd: baseDir };
    for (const key of PATH_KEYS) options[key] = path(merged[key]);
    if (merged.frameworks) options.frameworks = merged.frameworks as GenerateOptions["frameworks"];
    if (merged.compat !== undefined) options.compat = merged.compat;
    if (merged.stores) options.stores = merged.stores as GenerateOptions["stores"];
    if (merged.transports) options.transports = merged.transports as GenerateOptions["transports"];
    if (merged.cardSignatures !== undefined) options.cardSignatures = merged.cardSignatures;
    return options;
  });
}
