import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CodegenError } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import { BUNDLED_SCHEMA_DIR, parseJson } from "../schema/load.js";

/**
 * The facts of a spec version its JSON Schema does not state, kept in `schema/a2a-<v>.overlay.json`.
 * Small on purpose: anything derivable from the schema is derived, not listed here.
 */
export interface Overlay {
  version: string;
  wellKnownAgentCardPath: string;
  /** Methods that answer with a stream of events. */
  streamingMethods: string[];
  /** Method → response definition, for methods whose response is not named `<Request stem>Response`. */
  responses: Record<string, string>;
  /** Role → method: what each method does (send, stream, get, cancel, ...), so one runtime serves every version. */
  roles: Record<string, string>;
  /** The header (or query parameter) naming the protocol version a client speaks, where the version has one (1.0). */
  versionHeader?: string;
  /** Whether the wire format is ProtoJSON (1.0): fields at their default, such as an empty list, are left out. */
  protoJson?: boolean;
  /** Whether the text says task ids are server-generated, so a send naming a new task's `id` is refused (1.0 §3.4.2). */
  serverGeneratedTaskIds?: boolean;
  /** Whether a streaming call that fails before its first event is answered with a plain JSON-RPC error (1.0), not an SSE error event. */
  streamErrorsAsResponse?: boolean;
  /** The header a client names the extensions it activates in (1.0 `A2A-Extensions`, 0.3 `X-A2A-Extensions`). */
  extensionsHeader?: string;
  /**
   * The send configuration's flag that makes a send non-blocking, and the value that says so: `{ "field":
   * "blocking", "value": false }` (0.2–0.3), `{ "field": "returnImmediately", "value": true }` (1.0). The
   * schema names the field but not its sense; the profile finds where the send params carry it.
   */
  nonBlocking?: { field: string; value: boolean };
  /**
   * Constraints the specification text states but the schema does not (a message needs at least one part,
   * historyLength ≥ 0, ListTasks pageSize 1–100): JSON Schema keywords added to one property of one
   * definition in the validators, each with the text it comes from. Bundled versions keep them in
   * `schema/a2a-<version>.constraints.json`.
   */
  constraints?: SpecConstraint[];
}

/** One constraint of the specification text: `schema` (JSON Schema keywords) holds for `definition.property`. */
export interface SpecConstraint {
  definition: string;
  property: string;
  schema: JsonObject;
  /** Where the text says so ("specification-1.0.1.md §5.7 ..."). */
  source: string;
  /**
   * Where it holds: `"all"` (the default) wherever the definition is used; `"requests"` only in what a
   * server receives, i.e. where a method's params reference the definition (`MessageSendParams.message`),
   * not in the responses that reuse it (agents answer with messages and artifacts with empty `parts`).
   */
  appliesTo?: "requests";
}

/** The keywords a constraint may add: bounds only, so that it narrows what the schema accepts and never changes a type. */
const CONSTRAINT_KEYWORDS = new Set(["minItems", "maxItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "multipleOf"]);

export function bundledConstraintsPath(version: string): string {
  return join(BUNDLED_SCHEMA_DIR, `a2a-${version}.constraints.json`);
}

/** The spec-text constraints of a bundled version (none when it has no constraints file). */
export function bundledConstraints(version: string): SpecConstraint[] {
  return constraintsFile(bundledConstraintsPath(version));
}

/** The constraints of a constraints file (`{ "constraints": [...] }`), none when there is no such file. */
export function constraintsFile(path: string, displayPath: string = path): SpecConstraint[] {
  if (!existsSync(path)) return [];
  const json = parseJson(readFileSync(path, "utf8"), displayPath);
  return parseConstraints(isObject(json) ? json.constraints : json, displayPath, "/constraints");
}

/** An overlay with more constraints (those of a constraints file beside a user's schema). */
export function withConstraints(overlay: Overlay, constraints: readonly SpecConstraint[]): Overlay {
  return constraints.length > 0 ? { ...overlay, constraints: [...(overlay.constraints ?? []), ...constraints] } : overlay;
}

export function parseConstraints(value: unknown, file: string, pointer: string): SpecConstraint[] {
  if (!Array.isArray(value)) throw new CodegenError('"constraints" must be an array of { definition, property, schema, source }', { file, pointer });
  return value.map((entry, index) => {
    const at = `${pointer}/${index}`;
    if (!isObject(entry)) throw new CodegenError("a constraint must be an object { definition, property, schema, source }", { file, pointer: at });
    for (const key of ["definition", "property", "source"] as const) {
      if (typeof entry[key] !== "string" || entry[key] === "") throw new CodegenError(`"${key}" must be a non-empty string`, { file, pointer: `${at}/${key}` });
    }
    const schema = entry.schema;
    if (!isObject(schema) || Object.keys(schema).length === 0) throw new CodegenError('"schema" must be an object of JSON Schema keywords', { file, pointer: `${at}/schema` });
    for (const [keyword, bound] of Object.entries(schema)) {
      if (!CONSTRAINT_KEYWORDS.has(keyword)) {
        throw new CodegenError(`"${keyword}" is not a bound a constraint may add (${[...CONSTRAINT_KEYWORDS].join(", ")})`, { file, pointer: `${at}/schema/${keyword}` });
      }
      if (typeof bound !== "number" || !Number.isFinite(bound)) throw new CodegenError(`"${keyword}" must be a number`, { file, pointer: `${at}/schema/${keyword}` });
    }
    const appliesTo = entry.appliesTo;
    if (appliesTo !== undefined && appliesTo !== "all" && appliesTo !== "requests") throw new CodegenError('"appliesTo" must be "all" or "requests"', { file, pointer: `${at}/appliesTo` });
    return {
      definition: entry.definition as string,
      property: entry.property as string,
      schema: schema as JsonObject,
      source: entry.source as string,
      ...(appliesTo === "requests" ? { appliesTo } : {}),
    };
  });
}

export function bundledOverlayPath(version: string): string {
  return join(BUNDLED_SCHEMA_DIR, `a2a-${version}.overlay.json`);
}

/**
 * The facts of a bundled version: what its proto states (1.0 on; the loaded source carries them), else
 * its overlay file `schema/a2a-<version>.overlay.json`.
 */
export function bundledOverlay(source: { overlay?: JsonObject | undefined; displayPath: string }, version: string): Overlay {
  const overlay = source.overlay ? parseOverlay(source.overlay, source.displayPath) : loadOverlay(bundledOverlayPath(version));
  return withConstraints(overlay, bundledConstraints(version));
}

export function loadOverlay(path: string, displayPath: string = path): Overlay {
  if (!existsSync(path)) throw new CodegenError("overlay file not found", { file: displayPath });
  const json = parseJson(readFileSync(path, "utf8"), displayPath);
  return parseOverlay(json, displayPath);
}

export function parseOverlay(json: unknown, file: string): Overlay {
  if (!isObject(json)) throw new CodegenError("an overlay must be a JSON object", { file, pointer: "" });
  const str = (key: string): string => {
    const value = json[key];
    if (typeof value !== "string" || value === "") {
      throw new CodegenError(`"${key}" must be a non-empty string`, { file, pointer: `/${key}` });
    }
    return value;
  };
  const streaming = json.streamingMethods ?? [];
  if (!Array.isArray(streaming) || !streaming.every((m) => typeof m === "string")) {
    throw new CodegenError('"streamingMethods" must be an array of method names', { file, pointer: "/streamingMethods" });
  }
  const responses = json.responses ?? {};
  if (!isObject(responses) || !Object.values(responses).every((r) => typeof r === "string")) {
    throw new CodegenError('"responses" must map method names to definition names', { file, pointer: "/responses" });
  }
  const roles = json.roles ?? {};
  if (!isObject(roles) || !Object.values(roles).every((r) => typeof r === "string")) {
    throw new CodegenError('"roles" must map role names to method names', { file, pointer: "/roles" });
  }
  const path = str("wellKnownAgentCardPath");
  if (!path.startsWith("/")) {
    throw new CodegenError('"wellKnownAgentCardPath" must start with "/"', { file, pointer: "/wellKnownAgentCardPath" });
  }
  return {
    version: str("version"),
    wellKnownAgentCardPath: path,
    streamingMethods: streaming as string[],
    responses: responses as JsonObject as Record<string, string>,
    roles: roles as JsonObject as Record<string, string>,
    ...(typeof json.versionHeader === "string" ? { versionHeader: json.versionHeader } : {}),
    ...(json.protoJson === true ? { protoJson: true } : {}),
    ...(json.serverGeneratedTaskIds === true ? { serverGeneratedTaskIds: true } : {}),
    ...(json.streamErrorsAsResponse === true ? { streamErrorsAsResponse: true } : {}),
    ...(typeof json.extensionsHeader === "string" && json.extensionsHeader !== "" ? { extensionsHeader: json.extensionsHeader } : {}),
    ...(json.nonBlocking !== undefined ? { nonBlocking: parseNonBlocking(json.nonBlocking, file) } : {}),
    ...(json.constraints !== undefined ? { constraints: parseConstraints(json.constraints, file, "/constraints") } : {}),
  };
}

function parseNonBlocking(value: unknown, file: string): { field: string; value: boolean } {
  if (!isObject(value)) throw new CodegenError('"nonBlocking" must be an object { field, value }', { file, pointer: "/nonBlocking" });
  if (typeof value.field !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value.field)) {
    throw new CodegenError('"field" must be the name of a property of the send params or their configuration', { file, pointer: "/nonBlocking/field" });
  }
  if (typeof value.value !== "boolean") throw new CodegenError('"value" must be true or false: the value of the field that makes a send non-blocking', { file, pointer: "/nonBlocking/value" });
  return { field: value.field, value: value.value };
}
