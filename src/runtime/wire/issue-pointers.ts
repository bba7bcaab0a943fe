/**
 * Error data names fields by where they sit in the request the service saw: validation issues of the
 * whole JSON-RPC request and the runtime's own checks point under "/params" ("/params/message/contextId"),
 * and a version whose bindings carry other shapes than its JSON-RPC ones (0.3.0) names the service's
 * field ("/message/parts/0"). A binding without a JSON-RPC envelope re-points them into its own request
 * ("message.contextId"; 0.3.0's "/message/content/0"), so that an error names the field as the caller sent
 * it. Both forms of the data are handled: `{ issues }` or `{ pointer }` (0.x) and google.rpc details with a
 * BadRequest or an ErrorInfo whose metadata has a `pointer` (1.0).
 */
import { isObject } from "../json.js";

/** A pointer into the params without the JSON-RPC envelope's "/params" ("/params/x" → "/x", "/params" → ""). */
export function withoutEnvelope(pointer: string): string {
  return pointer === "/params" ? "" : pointer.startsWith("/params/") ? pointer.slice("/params".length) : pointer;
}

/** Replaces a leading `old` in a description ("/params/x: expected …") with `now`. */
function retext(text: unknown, old: string, now: string): unknown {
  if (typeof text !== "string" || old === now) return text;
  return text.startsWith(`${old}:`) ? `${now}${text.slice(old.length)}` : text;
}

const escapeToken = (t: string) => t.replace(/~/g, "~0").replace(/\//g, "~1");
const unescapeToken = (t: string) => t.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * The object whose properties an issue names in its text (`a property "parts"`, `property "x" is not
 * allowed`): the parent of the pointer for a missing or unknown property (the pointer is where it would
 * be), the pointer itself for "one of these properties" (`requiredOneOf`); undefined for other issues.
 */
function propertyParent(pointer: string, keyword: unknown): string | undefined {
  if (keyword === "requiredOneOf") return pointer;
  if (keyword !== "required" && keyword !== "additionalProperties") return undefined;
  const slash = pointer.lastIndexOf("/");
  return slash < 0 ? undefined : pointer.slice(0, slash);
}

/**
 * The issue's `expected` and `message` with each quoted property name of `parent` under its wire name: a
 * 0.3.0 HTTP+JSON request's message has `content` where JSON-RPC's has `parts`, so a missing one is
 * `required property "content"` at `/message/content`, not `"parts"`. A name the wire has elsewhere, or
 * not at all, is left as it is.
 */
function renameProperties(issue: Record<string, unknown>, parent: string | undefined, toWire: (pointer: string) => string): Record<string, unknown> {
  if (parent === undefined) return issue;
  const wireParent = toWire(withoutEnvelope(parent));
  const rename = (text: unknown) =>
    typeof text !== "string"
      ? text
      : text.replace(/property ((?:"[^"]*"(?: or )?)+)/g, (_m, names: string) =>
          `property ${names.replace(/"([^"]*)"/g, (quoted, name: string) => {
            const wire = toWire(withoutEnvelope(`${parent}/${escapeToken(name)}`));
            const prefix = `${wireParent}/`;
            const token = wire.startsWith(prefix) ? wire.slice(prefix.length) : undefined;
            return token !== undefined && !token.includes("/") ? `"${unescapeToken(token)}"` : quoted;
          })}`,
        );
  return { ...issue, expected: rename(issue["expected"]), message: rename(issue["message"]) };
}

/**
 * The error data with every issue pointer (and field violation) re-pointed: the envelope stripped, then
 * `toWire` applied (a binding's shape translation; identity when its shapes are the service's).
 */
export function repointIssues(data: unknown, toWire: (pointer: string) => string = (p) => p): unknown {
  if (isObject(data) && Array.isArray(data["issues"])) {
    const issues = data["issues"].map((issue) => {
      if (!isObject(issue) || typeof issue["pointer"] !== "string") return issue;
      const pointer = toWire(withoutEnvelope(issue["pointer"]));
      const renamed = { ...issue, pointer, message: retext(issue["message"], issue["pointer"] || "/", pointer || "/") };
      return renameProperties(renamed, propertyParent(issue["pointer"], issue["keyword"]), toWire);
    });
    return { ...data, issues };
  }
  // An error naming one field (ContentTypeNotSupported's `{ pointer: "/params/message/parts/0" }`).
  if (isObject(data) && typeof data["pointer"] === "string") return { ...data, pointer: toWire(withoutEnvelope(data["pointer"])) };
  if (Array.isArray(data)) {
    // 1.0's details: the field paths of a BadRequest (1.0 has no shape translation, only the envelope to strip).
    return data.map((detail) => {
      if (isObject(detail) && isObject(detail["metadata"]) && typeof detail["metadata"]["pointer"] === "string") {
        // An ErrorInfo naming one field in its metadata.
        return { ...detail, metadata: { ...detail["metadata"], pointer: toWire(withoutEnvelope(detail["metadata"]["pointer"])) } };
      }
      if (!isObject(detail) || !Array.isArray(detail["fieldViolations"])) return detail;
      const fieldViolations = detail["fieldViolations"].map((v) => {
        if (!isObject(v) || typeof v["field"] !== "string" || !/^params($|[.[])/.test(v["field"])) return v;
        const field = v["field"].replace(/^params\.?/, "");
        const description = typeof v["description"] === "string" ? v["description"].replace(/^\/params(?=[/:])/, "").replace(/^:/, "/:") : v["description"];
        return { ...v, field, description };
      });
      return { ...detail, fieldViolations };
    });
  }
  return data;
}

/** A message naming envelope pointers ("Invalid params: /params/message/contextId: …") with them re-pointed. */
export function repointText(text: string, toWire: (pointer: string) => string = (p) => p): string {
  return text.replace(/(^|[\s(])(\/params(?:\/[^\s:]*)?)(?=:)/g, (_m, before: string, pointer: string) => `${before}${toWire(withoutEnvelope(pointer)) || "/"}`);
}
