import { CodegenError, joinPointer } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import { refName } from "../schema/normalize.js";
import type { NamedUnion, UnionInfo } from "./types.js";
import { objectShape } from "./unions.js";

/**
 * Names for the inline members of a union told apart by presence (1.0's oneofs: `Part` is `text | raw |
 * url | data`), so that they can be written, narrowed and guarded by name as tagged members are
 * (`TextPart`, `isTextPart`). The names come from the property that marks each member (the proto's oneof
 * field) and the union:
 * - a union whose members hold plain values is named field first: `text` of `Part` → `TextPart`;
 * - a union whose members wrap another definition (`StreamResponse`'s `task: Task`, `SecurityScheme`'s
 *   `apiKeySecurityScheme: APIKeySecurityScheme`) is named union first, so that a member is never
 *   mistaken for the definition it wraps: `StreamResponseTask`, `SecuritySchemeApiKey` (a field ending
 *   in the union's name drops it).
 * The properties every member declares alike go into a shared base, `<Union>Base` (`PartBase`: metadata,
 * filename, mediaType). JSON-RPC response envelopes (members with `jsonrpc`, told apart by result/error)
 * keep their shape: their members are the protocol's own success and error responses.
 * A generated name that is already a definition (or another generated name) is an error naming both.
 */
export function nameUnionMembers(definitions: Record<string, JsonObject>, unions: UnionInfo[], at: (pointer: string) => { file: string; pointer: string }): NamedUnion[] {
  const taken = new Map<string, string>();
  for (const name of Object.keys(definitions)) taken.set(name.toLowerCase(), `definition "${name}"`);
  const out: NamedUnion[] = [];
  for (const union of unions) {
    if (union.definition === undefined || union.dispatch.kind !== "presence") continue;
    if (union.members.some((m) => m.ref !== undefined)) continue;
    const items = (definitions[union.definition] as JsonObject)[union.keyword];
    if (!Array.isArray(items)) continue;
    const shapes = union.members.map((m) => {
      const item = items[m.index];
      return isObject(item) ? objectShape(item, definitions) : undefined;
    });
    if (shapes.some((s) => s === undefined || "jsonrpc" in s.properties)) continue;
    const markers = union.dispatch.markers;
    const wraps = markers.some(({ property, member }) => {
      const schema = shapes[member.index]?.properties[property];
      return isObject(schema) && refName(schema.$ref) !== undefined;
    });
    const unionName = union.definition;
    const first = shapes[0] as NonNullable<(typeof shapes)[number]>;
    const common = Object.keys(first.properties)
      .filter((p) => !markers.some((m) => m.property === p))
      .filter((p) => shapes.every((s) => s !== undefined && p in s.properties && JSON.stringify(s.properties[p]) === JSON.stringify(first.properties[p]) && s.required.includes(p) === first.required.includes(p)));
    const base = common.length > 0 ? `${unionName}Base` : undefined;
    const claim = (name: string, what: string) => {
      const clash = taken.get(name.toLowerCase());
      if (clash !== undefined) {
        throw new CodegenError(`the ${what} would be named "${name}", which is already ${clash}; rename the definition`, at(joinPointer("", "definitions", unionName)));
      }
      taken.set(name.toLowerCase(), `the ${what}`);
    };
    if (base !== undefined) claim(base, `shared base of union "${unionName}"`);
    const members = markers.map(({ property, member }) => {
      const field = pascal(property);
      const stem = field.length > unionName.length && field.endsWith(unionName) ? field.slice(0, -unionName.length) : field;
      const name = wraps ? `${unionName}${stem}` : `${stem}${unionName}`;
      claim(name, `member of union "${unionName}" holding "${property}"`);
      claim(`is${name}`, `guard of member "${name}"`);
      return { name, property, index: member.index };
    });
    out.push({ union: unionName, base, common, members });
  }
  return out;
}

/** `apiKeySecurityScheme` → `ApiKeySecurityScheme`; `push_config` → `PushConfig`. */
function pascal(property: string): string {
  return property
    .split(/[^A-Za-z0-9]+/)
    .filter((s) => s !== "")
    .map((s) => (s[0] as string).toUpperCase() + s.slice(1))
    .join("");
}
