import { existsSync, readFileSync, readdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { CodegenError } from "../errors.js";
import { sha256 } from "../sha256.js";
import { isObject, lineAndColumn, type JsonObject } from "./json.js";

import { BUNDLED_SCHEMA_DIR } from "./paths.js";

export { BUNDLED_SCHEMA_DIR };

/** A bundled spec: `a2a-<version>.json` (0.x), or `a2a-<version>.proto` (1.0 on, where the proto is normative). */
const SCHEMA_FILE = /^a2a-(\d+\.\d+\.\d+)\.(json|proto)$/;

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
  return [...new Set(readdirSync(dir).map((name) => SCHEMA_FILE.exec(name)?.[1]).filter((v): v is string => v !== undefined))].sort(compareVersions);
}

/** The bundled file of a version: its JSON Schema, else its proto. */
export function bundledSchemaPath(version: string, dir: string = BUNDLED_SCHEMA_DIR): string {
  const json = join(dir, `a2a-${version}.json`);
  return existsSync(json) ? json : join(dir, `a2a-${version}.proto`);
}

/**
 * The version used when none is asked for: the newest bundled one. (1.0.1, from its proto, became the
 * default once its generated server and client passed everything the JSON Schema versions pass: the
 * protocol suite on every adapter, bad input, SSRF, fuzzing, and interop with the official SDK 1.x.)
 */
export function defaultVersion(dir: string = BUNDLED_SCHEMA_DIR): string {
  const versions = bundledVersions(dir);
  const newest = versions[versions.length - 1];
  if (newest === undefined) throw new CodegenError(`no bundled schema in ${dir}`, { kind: "io" });
  return newest;
}

/** A schema file as read: its bytes as text, before any front end made a JSON Schema of it. */
export interface SchemaFile {
  /** Absolute path of the schema file. */
  path: string;
  /** How to name the file in messages (relative when it is the user's). */
  displayPath: string;
  text: string;
  /** sha256 of the file's bytes, hex. */
  sha256: string;
  /** The bundled version this file is, when it was chosen with --spec. */
  bundledVersion: string | undefined;
  /** Which front end reads it: a JSON Schema, or (1.0 on) a proto. */
  format: "json" | "proto";
}

/** A schema file with the JSON Schema its front end made of it (loadProtocol in load/protocol.ts decides which). */
export interface SchemaSource extends SchemaFile {
  json: JsonObject;
  /** The version facts a proto states itself (its service's methods and streams), when the input was a proto. */
  overlay?: JsonObject | undefined;
}

export interface LoadOptions {
  /** A bundled version id, e.g. "0.3.0". */
  spec?: string | undefined;
  /** A schema file path; wins over `spec`. */
  schema?: string | undefined;
  /** Base folder for a relative `schema` path. */
  cwd?: string | undefined;
}

/** Reads the schema file the options name: the user's file, else the bundled file of a version. */
export function readSchemaFile(options: LoadOptions): SchemaFile {
  if (options.schema !== undefined) {
    const path = resolve(options.cwd ?? process.cwd(), options.schema);
    return readFile(path, options.schema, undefined);
  }
  const versions = bundledVersions();
  const version = options.spec ?? defaultVersion();
  if (!versions.includes(version)) {
    throw new CodegenError(`unknown spec version "${version}"; bundled versions: ${versions.join(", ")}`, {
      kind: "usage",
    });
  }
  const path = bundledSchemaPath(version);
  return readFile(path, `schema/${basename(path)}`, version);
}

function readFile(path: string, displayPath: string, bundledVersion: string | undefined): SchemaFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT" ? "file not found" : code === "EISDIR" ? "is a folder, not a schema file" : `cannot be read (${code ?? String(error)})`;
    throw new CodegenError(why, { file: displayPath, cause: error });
  }
  return {
    path,
    displayPath,
    text: bytes.toString("utf8"),
    sha256: sha256(bytes),
    bundledVersion,
    format: path.endsWith(".proto") ? "proto" : "json",
  };
}

/** The JSON Schema of a JSON schema file: its text parsed, which must be an object. */
export function jsonSchemaOf(file: SchemaFile): JsonObject {
  const json = parseJson(file.text, file.displayPath);
  if (!isObject(json)) {
    throw new CodegenError("not an A2A JSON Schema: the top level is not a JSON object", { file: file.displayPath, pointer: "" });
  }
  return json;
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
