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
}

export function bundledOverlayPath(version: string): string {
  return join(BUNDLED_SCHEMA_DIR, `a2a-${version}.overlay.json`);
}

/**
 * The facts of a bundled version: what its proto states (1.0 on; the loaded source carries them), else
 * its overlay file `schema/a2a-<version>.overlay.json`.
 */
export function bundledOverlay(source: { overlay?: JsonObject | undefined; displayPath: string }, version: string): Overlay {
  return source.overlay ? parseOverlay(source.overlay, source.displayPath) : loadOverlay(bundledOverlayPath(version));
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
  };
}
