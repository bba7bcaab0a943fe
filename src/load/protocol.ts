/**
 * The front end: from what the user names (a bundled version, a JSON Schema file, a proto) to the
 * Protocol IR, in one place. `generate`, `diff` and the regeneration report all load through here, so
 * there is one path from an input to its IR (no generation, no formatting, just to get one):
 *
 *   file ──(JSON Schema | proto → JSON Schema)──▶ source ──normalize──▶ normalized ──(+ overlay)──▶ ir
 *
 * The front end decides how a file is read: a `.proto` goes through the proto converter (which also
 * states the version's facts, its overlay), anything else is parsed as a JSON Schema and checked against
 * the meta-schema when it is the user's.
 */
import { existsSync } from "node:fs";
import { relative } from "node:path";
import { resolve } from "node:path";
import { CodegenError } from "../errors.js";
import { buildIR } from "../ir/build.js";
import { bundledOverlay, constraintsFile, loadOverlay, parseOverlay, withConstraints, type Overlay } from "../ir/overlay.js";
import type { ProtocolIR } from "../ir/types.js";
import { protoToJsonSchema } from "../proto/to-json-schema.js";
import { isObject, type JsonObject } from "../schema/json.js";
import { bundledSchemaPath, bundledVersions, jsonSchemaOf, readSchemaFile, type LoadOptions, type SchemaFile, type SchemaSource } from "../schema/load.js";
import { checkDepth, normalizeSchema, type NormalizedSchema } from "../schema/normalize.js";
import { checkJsonSchema } from "./meta-schema.js";

export interface ProtocolInput extends LoadOptions {
  /** An overlay file for `schema` (default: `<schema>.overlay.json` beside it, else the closest bundled version's). */
  overlay?: string | undefined;
}

export interface LoadedProtocol {
  /** The file as read, with the JSON Schema its front end made of it. */
  source: SchemaSource;
  normalized: NormalizedSchema;
  /** The version facts the schema does not state. */
  overlay: Overlay;
  ir: ProtocolIR;
}

/** The stages of loading, for a caller that times them (generate's --timings). */
export type LoadPhase = "load" | "normalize" | "ir";
export type Measure = <T>(phase: LoadPhase, work: () => T) => T;
const unmeasured: Measure = (_phase, work) => work();

/** Loads a protocol from a bundled version or a file, through the one front end. */
export function loadProtocol(input: ProtocolInput = {}, measure: Measure = unmeasured): LoadedProtocol {
  const cwd = input.cwd ?? process.cwd();
  const source = measure("load", () => {
    const loaded = schemaSource(readSchemaFile({ spec: input.spec, schema: input.schema, cwd }));
    // A JSON Schema of the user's is valid JSON Schema before anything is built from it (the bundled ones
    // are; a proto's is derived). Depth first: the meta-schema check recurses, and a schema too deep for
    // a2a-codegen is refused by name.
    if (loaded.bundledVersion === undefined && loaded.format === "json") {
      checkDepth(loaded.json, loaded.displayPath);
      checkJsonSchema(loaded.json, loaded.displayPath);
    }
    return loaded;
  });
  const normalized = measure("normalize", () => normalizeSchema(source.json, source.displayPath));
  const { overlay, ir } = measure("ir", () => {
    const found = resolveOverlay(source, normalized.definitions, input.overlay, cwd);
    const built = buildIR({ schema: normalized, overlay: found.overlay, specVersion: found.version, versionBasis: found.basis, file: source.displayPath, sha256: source.sha256 });
    return { overlay: found.overlay, ir: built };
  });
  return { source, normalized, overlay, ir };
}

/** The IR of a bundled version, through the front end `generate` uses (no emitting, no formatting). */
export function bundledIR(version: string): ProtocolIR {
  return loadProtocol({ spec: version }).ir;
}

/** The IR of a bundled version id ("0.2.5"), or else of a schema file (overlay as `generate` finds it). */
export async function protocolIR(versionOrFile: string, cwd: string = process.cwd()): Promise<ProtocolIR> {
  if (bundledVersions().includes(versionOrFile)) return bundledIR(versionOrFile);
  return loadProtocol({ schema: versionOrFile, cwd }).ir;
}

/** The JSON Schema of a file, by its front end: the proto converter for a proto, else the file's JSON. */
export function schemaSource(file: SchemaFile): SchemaSource {
  if (file.format === "proto") {
    const conversion = protoToJsonSchema(file.path);
    return { ...file, json: conversion.schema as JsonObject, overlay: conversion.overlay as JsonObject };
  }
  return { ...file, json: jsonSchemaOf(file) };
}

function resolveOverlay(
  source: SchemaSource,
  definitions: Record<string, unknown>,
  overlayOption: string | undefined,
  cwd: string,
): { overlay: Overlay; version: string; basis: ProtocolIR["versionBasis"] } {
  if (source.bundledVersion !== undefined) {
    return { overlay: bundledOverlay(source, source.bundledVersion), version: source.bundledVersion, basis: "bundled" };
  }
  const explicit = overlayOption ? resolve(cwd, overlayOption) : undefined;
  if (!explicit && source.overlay) {
    // A proto states its own facts (methods, streams); its version comes from its file name.
    const overlay = parseOverlay(source.overlay, source.displayPath);
    return { overlay, version: overlay.version, basis: "overlay" };
  }
  const sibling = source.path.replace(/\.json$/i, "") + ".overlay.json";
  const overlayPath = explicit ?? (existsSync(sibling) ? sibling : undefined);
  if (overlayPath !== undefined) {
    // The spec-text constraints of a schema with its own overlay sit beside it too (as the bundled ones do).
    const constraintsPath = source.path.replace(/\.json$/i, "") + ".constraints.json";
    const overlay = withConstraints(loadOverlay(overlayPath, displayPath(overlayPath, cwd)), constraintsFile(constraintsPath, displayPath(constraintsPath, cwd)));
    return { overlay, version: overlay.version, basis: "overlay" };
  }
  // The closest bundled version, already loaded: its facts come from that same source.
  const closest = closestBundled(source, Object.keys(definitions));
  return { overlay: bundledOverlay(closest.source, closest.version), version: closest.version, basis: "closest-bundled" };
}

/**
 * The bundled version a schema file is, or is derived from: the same bytes, else the most similar set of
 * definition names (ties go to the newer version).
 */
export function closestBundledVersion(source: SchemaSource, names: string[]): string {
  return closestBundled(source, names).version;
}

function closestBundled(source: SchemaSource, names: string[]): { version: string; source: SchemaSource } {
  const mine = new Set(names);
  let best: { version: string; source: SchemaSource; score: number } | undefined;
  for (const version of bundledVersions()) {
    const bundled = schemaSource(readSchemaFile({ schema: bundledSchemaPath(version) }));
    if (bundled.sha256 === source.sha256) return { version, source: bundled };
    const defs = bundled.json.definitions ?? bundled.json.$defs;
    const theirs = new Set(isObject(defs) ? Object.keys(defs) : []);
    const shared = [...mine].filter((n) => theirs.has(n)).length;
    const score = shared / (mine.size + theirs.size - shared || 1);
    if (!best || score >= best.score) best = { version, source: bundled, score };
  }
  if (!best) throw new CodegenError("no bundled schema to compare with", { kind: "io" });
  return best;
}

function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") ? rel : path;
}
