import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isObject } from "../schema/json.js";

/** What `migrate` reads of the project folder: its config, the versions it is generated for, its card. */
export interface ProjectFacts {
  dir: string;
  /** a2a-codegen.config.json, when the project has one (a JSON config: the one `migrate` can edit). */
  configFile: string | undefined;
  config: Record<string, unknown> | undefined;
  /** The spec version of the generated folder the config writes (its manifest), else the config's `spec`. */
  generatedVersion: string | undefined;
  /** The agent card file the config names. */
  cardFile: string | undefined;
  /** The agent's name (the card's, else package.json's, else the folder's). */
  name: string;
}

export function readProject(dir: string): ProjectFacts {
  const configFile = join(dir, "a2a-codegen.config.json");
  const config = existsSync(configFile) ? readJson(configFile) : undefined;
  const out = typeof config?.out === "string" ? resolve(dir, config.out) : undefined;
  const manifest = out !== undefined ? manifestVersion(out) : undefined;
  const cardFile = typeof config?.card === "string" ? resolve(dir, config.card) : undefined;
  const card = cardFile !== undefined && existsSync(cardFile) ? readJson(cardFile) : undefined;
  const pkg = existsSync(join(dir, "package.json")) ? readJson(join(dir, "package.json")) : undefined;
  return {
    dir,
    configFile: config ? configFile : undefined,
    config,
    generatedVersion: manifest ?? (typeof config?.spec === "string" ? config.spec : undefined),
    cardFile,
    name: typeof card?.name === "string" ? card.name : typeof pkg?.name === "string" ? pkg.name : basename(dir),
  };
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, "utf8"));
    return isObject(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The spec version in a generated folder's manifest. */
export function manifestVersion(folder: string): string | undefined {
  const file = join(folder, "a2a-codegen.manifest.json");
  if (!existsSync(file)) return undefined;
  const version = readJson(file)?.specVersion;
  return typeof version === "string" ? version : undefined;
}

/**
 * The version of the generated folder a file is in (the nearest `a2a-codegen.manifest.json` above it,
 * up to `root`), or undefined for a file of the user's own.
 */
export function generatedVersions(root: string): (file: string) => string | undefined {
  const cache = new Map<string, string | undefined>();
  const lookup = (folder: string): string | undefined => {
    if (cache.has(folder)) return cache.get(folder);
    let version = manifestVersion(folder);
    if (version === undefined) {
      const parent = dirname(folder);
      version = parent !== folder && (folder.startsWith(root + sep) || parent.startsWith(root)) ? lookup(parent) : undefined;
    }
    cache.set(folder, version);
    return version;
  };
  return (file) => (relative(root, file).split(/[\\/]/).includes("node_modules") ? undefined : lookup(dirname(file)));
}

/** Whether a path is one of the given paths or inside one. */
export function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel));
  });
}
