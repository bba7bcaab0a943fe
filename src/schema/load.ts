import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CodegenError } from "../errors.js";
import { isObject, lineAndColumn, type JsonObject } from "./json.js";

/** Where the package keeps its bundled schemas and overlays (works from src/ and from dist/). */
export const BUNDLED_SCHEMA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../schema");

const SCHEMA_FILE = /^a2a-(\d+\.\d+\.\d+)\.json$/;

export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The bundled spec versions, oldest first. */
export function bundledVersions(dir: string = BUNDLED_SCHEMA_DIR): string[] {
  return readdirSync(dir)
    .map((name) => SCHEMA_FILE.exec(name)?.[1])
    .filter((v): v is string => v !== undefined)
    .sort(compareVersions);
}

export function defaultVersion(dir: string = BUNDLED_SCHEMA_DIR): string {
  const versions = bundledVersions(dir);
  const newest = versions[versions.length - 1];
  if (newest === undefined) throw new CodegenError(`no bundled schema in ${dir}`, { kind: "io" });
  return newest;
}

export interface SchemaSource {
  /** Absolute path of the schema file. */
  path: string;
  /** How to name the file in messages (relative when it is the user's). */
  displayPath: string;
  text: string;
  json: JsonObject;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** The bundled version this file is, when it was chosen with --spec. */
  bundledVersion: string | undefined;
}

export interface LoadOptions {
  /** A bundled version id, e.g. "0.3.0". */
  spec?: string | undefined;
  /** A schema file path; wins over `spec`. */
  schema?: string | undefined;
  /** Base folder for a relative `schema` path. */
  cwd?: string | undefined;
}

export function loadSchemaSource(options: LoadOptions): SchemaSource {
  if (options.schema !== undefined) {
    const path = resolve(options.cwd ?? process.cwd(), options.schema);
    return readSchemaFile(path, options.schema, undefined);
  }
  const versions = bundledVersions();
  const version = options.spec ?? defaultVersion();
  if (!versions.includes(version)) {
    throw new CodegenError(`unknown spec version "${version}"; bundled versions: ${versions.join(", ")}`, {
      kind: "usage",
    });
  }
  const path = join(BUNDLED_SCHEMA_DIR, `a2a-${version}.json`);
  return readSchemaFile(path, `schema/${basename(path)}`, version);
}

function readSchemaFile(path: string, displayPath: string, bundledVersion: string | undefined): SchemaSource {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a folder, not a schema file" : `cannot be read (${code ?? String(error)})`;
    throw new CodegenError(why, { file: displayPath, cause: error });
  }
  const text = bytes.toString("utf8");
  const json = parseJson(text, displayPath);
  if (!isObject(json)) {
    throw new CodegenError("not an A2A JSON Schema: the top level is not a JSON object", { file: displayPath, pointer: "" });
  }
  return {
    path,
    displayPath,
    text,
    json,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    bundledVersion,
  };
}

/** JSON.parse with an error that gives the line and column of the problem. */
export function parseJson(text: string, displayPath: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const offset = position ? Number(position[1]) : text.length;
    const { line, column } = lineAndColumn(text, offset);
    const reason = message.replace(/ in JSON at position \d+.*$/s, "").replace(/^JSON\.parse: /, "");
    throw new CodegenError(`invalid JSON at line ${line}, column ${column}: ${reason}`, { file: displayPath, cause: error });
  }
}
