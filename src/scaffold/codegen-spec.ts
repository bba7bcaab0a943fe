import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { GENERATOR_VERSION } from "../version.js";

/** The root of the running a2a-codegen package (works from src/ and from dist/). */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface CodegenSpec {
  /** The npm spec the scaffold's package.json gets for a2a-codegen: `^0.1.0`, `file:/…/a2a-codegen-0.1.0.tgz`, `file:/…/a2a-codegen`. */
  spec: string;
  /** Where it comes from: the registry, the tarball this copy was installed from, or this folder (a checkout or an unpacked package). */
  source: "registry" | "tarball" | "folder";
  /**
   * For a folder: whether npm can install it as a `file:` dependency. npm runs a linked folder's
   * `prepare` (the build), which needs the devDependencies a checkout has and an installed copy has not.
   */
  installable?: boolean;
}

/**
 * The dependency on a2a-codegen that installs from where the running copy came from, so that a scaffold
 * installs before a2a-codegen is published as well as after:
 * - installed from the registry (its lockfile entry resolves to an http(s) URL): the registry range;
 * - installed from a tarball (`npx ./a2a-codegen-0.1.0.tgz`, `npm i -g ./….tgz`): that tarball, while it exists;
 * - anything else (a checkout, an unpacked package): this folder.
 */
export function codegenSpec(packageRoot: string = PACKAGE_ROOT): CodegenSpec {
  const root = realpath(packageRoot);
  const resolved = lockfileResolved(root);
  if (resolved !== undefined) {
    if (/^https?:\/\//.test(resolved)) return { spec: `^${packageVersion(root)}`, source: "registry" };
    const file = /^file:(.*\.(?:tgz|tar\.gz))$/.exec(resolved)?.[1];
    if (file !== undefined) {
      // Relative to the project that holds the lockfile (absolute paths stay as they are).
      const tarball = resolve(lockfileBase(root) ?? root, file);
      if (existsSync(tarball)) return { spec: `file:${tarball}`, source: "tarball" };
    }
  }
  // An installed copy (in a node_modules) is packed into the project; a checkout is depended on as it is.
  return { spec: `file:${root}`, source: "folder", installable: lockfileBase(root) === undefined && canPrepare(root) };
}

/** Where a project keeps the a2a-codegen tarball it depends on (`file:vendor/…`: it installs on any machine). */
export const VENDOR_FOLDER = "vendor";

/**
 * A tarball dependency copied into the project's vendor/ folder: the project depends on
 * `file:vendor/a2a-codegen-<version>.tgz`, which teammates and CI install from the project itself, not
 * from a path on the machine that ran init.
 */
export function vendorInto(spec: CodegenSpec, dir: string): CodegenSpec {
  if (spec.source !== "tarball" || !spec.spec.startsWith("file:")) return spec;
  const tarball = spec.spec.slice("file:".length);
  const name = basename(tarball);
  mkdirSync(join(dir, VENDOR_FOLDER), { recursive: true });
  copyFileSync(tarball, join(dir, VENDOR_FOLDER, name));
  return { spec: `file:${VENDOR_FOLDER}/${name}`, source: "tarball" };
}

/** Whether a folder's `prepare` script can run there: none, or the TypeScript compiler it builds with is installed. */
function canPrepare(root: string): boolean {
  try {
    const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts?: Record<string, unknown> }).scripts ?? {};
    return scripts.prepare === undefined || existsSync(join(root, "node_modules", ".bin", "tsc"));
  } catch {
    return true;
  }
}

/**
 * An installed copy with no tarball to copy (see `installable`), packed into the project's vendor/ folder
 * without running its scripts: the project then depends on its own `file:vendor/a2a-codegen-<version>.tgz`.
 * Undefined when npm cannot pack it (not on PATH).
 */
export function packInto(root: string, dir: string): CodegenSpec | undefined {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const vendor = join(dir, VENDOR_FOLDER);
  mkdirSync(vendor, { recursive: true });
  const run = spawnSync(npm, ["pack", "--ignore-scripts", "--silent", "--pack-destination", vendor, root], { encoding: "utf8", timeout: 120_000 });
  const name = run.status === 0 ? run.stdout.trim().split("\n").pop() : undefined;
  if (!name || !existsSync(join(vendor, name))) return undefined;
  return { spec: `file:${VENDOR_FOLDER}/${name}`, source: "tarball" };
}

/** The `resolved` of this package's entry in the lockfile of the project it is installed in, if it is in one. */
function lockfileResolved(root: string): string | undefined {
  const base = lockfileBase(root);
  if (base === undefined) return undefined;
  const key = relative(base, root).split(sep).join("/");
  for (const lockfile of [join(base, "node_modules", ".package-lock.json"), join(base, "package-lock.json"), join(base, "npm-shrinkwrap.json")]) {
    try {
      const lock = JSON.parse(readFileSync(lockfile, "utf8")) as { packages?: Record<string, { resolved?: unknown }> };
      const resolved = lock.packages?.[key]?.resolved;
      if (typeof resolved === "string") return resolved;
    } catch {
      // No such lockfile, or not one npm wrote: try the next.
    }
  }
  return undefined;
}

/** The project folder whose node_modules holds the package (lockfile paths are relative to it), if it is in one. */
function lockfileBase(root: string): string | undefined {
  const parts = root.split(sep);
  const at = parts.lastIndexOf("node_modules");
  return at > 0 ? parts.slice(0, at).join(sep) || sep : undefined;
}

function packageVersion(root: string): string {
  try {
    const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : GENERATOR_VERSION;
  } catch {
    return GENERATOR_VERSION;
  }
}

function realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** For messages: `a2a-codegen-0.1.0.tgz` rather than the whole path. */
export function describeSpec(spec: CodegenSpec): string {
  if (spec.source === "registry") return `${spec.spec} (from the registry)`;
  if (spec.spec.startsWith(`file:${VENDOR_FOLDER}/`)) return `${spec.spec} (in the project: it installs anywhere)`;
  return spec.source === "tarball" ? `${basename(spec.spec)} (the tarball it was installed from)` : `${spec.spec.slice(5)} (this copy)`;
}
