import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CodegenError } from "./errors.js";
import type { GenerateOptions } from "./generate.js";
import { isObject } from "./schema/json.js";
import { parseJson } from "./schema/load.js";
import { CONFIG_OPTIONS, CONFIG_STRUCTURE_KEYS, didYouMean, firstUnknownValue, unknownValueMessage, type ConfigTarget, type OptionDeclaration } from "./options/declarations.js";

/** The names a config file is looked for under, in this order, in the working folder. */
export const CONFIG_FILES = ["a2a-codegen.config.json", "a2a-codegen.config.mjs", "a2a-codegen.config.js"];

/**
 * One generation: what to read and where to write (the keys are declared in options/declarations.ts; see
 * docs/config.md). Paths are relative to the config file's folder.
 */
export type TargetConfig = ConfigTarget;

/** The config file: one target, or several under `targets` (top-level keys are defaults for each). */
export interface Config extends TargetConfig {
  targets?: TargetConfig[];
}

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
  const keys = CONFIG_OPTIONS.map((o) => o.config);
  const readTarget = (value: unknown, pointer: string): TargetConfig => {
    if (!isObject(value)) throw new CodegenError("a target must be an object", { file, pointer });
    const target: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      if (key === "targets" && pointer === "") continue;
      if (key === "$schema" || key === "$comment") continue;
      const option: OptionDeclaration | undefined = CONFIG_OPTIONS.find((o) => o.config === key);
      if (option === undefined) {
        const allowed = [...keys, ...(pointer === "" ? ["targets"] : [])];
        throw new CodegenError(`unknown key "${key}"${didYouMean(key, [...keys, ...CONFIG_STRUCTURE_KEYS])}; allowed: ${allowed.join(", ")}`, { file, pointer: `${pointer}/${key}` });
      }
      target[key] = readValue(option, key, v, file, `${pointer}/${key}`);
    }
    return target as TargetConfig;
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
    for (const option of CONFIG_OPTIONS) {
      const value = merged[option.config];
      if (value === undefined) continue;
      (options as Record<string, unknown>)[option.config] = "path" in option ? path(value as string) : value;
    }
    return options;
  });
}

/** A config value of `option`, checked against its declaration: type, list, allowed values (with the closest). */
function readValue(option: OptionDeclaration, key: string, v: unknown, file: string, pointer: string): unknown {
  if (option.type === "boolean") {
    if (typeof v !== "boolean") throw new CodegenError(`"${key}" must be true or false`, { file, pointer });
    return v;
  }
  if (option.list) {
    if (!Array.isArray(v) || !v.every((f) => typeof f === "string")) {
      throw new CodegenError(`"${key}" must be an array of ${option.values?.noun ?? "string"} names`, { file, pointer });
    }
    const bad = firstUnknownValue(option, v as string[]);
    if (bad >= 0 && option.values !== undefined) throw new CodegenError(unknownValueMessage(option.values, String(v[bad])), { file, pointer: `${pointer}/${bad}` });
    return v as string[];
  }
  if (typeof v !== "string" || v === "") throw new CodegenError(`"${key}" must be a non-empty string`, { file, pointer });
  if (firstUnknownValue(option, [v]) >= 0 && option.values !== undefined) throw new CodegenError(unknownValueMessage(option.values, v), { file, pointer });
  return v;
}
