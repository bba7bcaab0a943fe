/**
 * Extensions a client activates for a request (specification-1.0.1.md §3.2.6 service parameters, §14.2.2
 * the `A2A-Extensions` header; 0.3's SDKs send `X-A2A-Extensions`): a comma-separated list of extension
 * URIs. The agent card declares the extensions it supports (`capabilities.extensions`), some of them
 * `required: true`: a request that does not activate every required one is refused (§3.3.4: "the agent
 * MUST return ExtensionSupportRequiredError"). The extensions activated are those asked for that the card
 * declares; the executor sees them and the response names them in the same header.
 */
import { isObject, type JsonObject } from "../json.js";

export interface DeclaredExtension {
  uri: string;
  required: boolean;
}

/** The extensions an agent card declares (`capabilities.extensions`). */
export function declaredExtensions(card: JsonObject): DeclaredExtension[] {
  const capabilities = card["capabilities"];
  const list: unknown = isObject(capabilities) ? capabilities["extensions"] : undefined;
  return (Array.isArray(list) ? list : []).filter(isObject).flatMap((e) => {
    const uri = e["uri"];
    return typeof uri === "string" && uri !== "" ? [{ uri, required: e["required"] === true }] : [];
  });
}

/** The URIs of a header value (comma-separated, whitespace around each ignored, empty entries dropped). */
export function requestedExtensions(header: string | undefined): string[] {
  return (header ?? "")
    .split(",")
    .map((uri) => uri.trim())
    .filter((uri) => uri !== "");
}

/** What a request activates, and which required extensions it leaves out. */
export function extensionActivation(declared: readonly DeclaredExtension[], header: string | undefined): { activated: string[]; missing: string[] } {
  const requested = new Set(requestedExtensions(header));
  return {
    activated: declared.filter((e) => requested.has(e.uri)).map((e) => e.uri),
    missing: declared.filter((e) => e.required && !requested.has(e.uri)).map((e) => e.uri),
  };
}
