/**
 * Reading a ProtoJSON document against the schema the proto front end produces: which definition every
 * object in it is an instance of (following `$ref`s, and choosing a oneof variant by the member present),
 * and, given a validator, the errors that belong to each object itself rather than to the union branches
 * a plain validator reports. Used to explain why real documents fail (the corpus report, spec examples).
 */

type Schema = Record<string, unknown>;

export interface TypedNode {
  /** JSON pointer of the object in the document. */
  pointer: string;
  /** The definition it is an instance of. */
  definition: string;
  /** For a oneof message: the index of the variant whose member is present (undefined when not exactly one is). */
  variant: number | undefined;
  /** For a oneof message: the members present (none or several is the object's own error). */
  members: string[] | undefined;
  /** A union of definitions (`XRpcResponse`): its chosen member is a node of its own at the same pointer. */
  union: boolean;
  value: unknown;
}

function isObject(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refName(schema: unknown): string | undefined {
  if (!isObject(schema) || typeof schema.$ref !== "string") return undefined;
  return /^#\/definitions\/(.+)$/.exec(schema.$ref)?.[1];
}

export function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The property each inline variant of a presence union requires and no other variant declares. */
function markersOf(variants: Schema[]): Array<string | undefined> {
  return variants.map((v, i) => {
    const required = Array.isArray(v.required) ? (v.required as string[]) : [];
    return required.find((p) => variants.every((o, j) => j === i || !(isObject(o.properties) && p in o.properties)));
  });
}

/** A property every member requires with a distinct constant, and those constants in member order. */
function tagOf(members: Schema[]): { property: string; values: unknown[] } | undefined {
  const first = members[0];
  if (!first || !isObject(first.properties)) return undefined;
  for (const property of Object.keys(first.properties).sort()) {
    const values = members.map((m) => {
      const p = isObject(m.properties) ? m.properties[property] : undefined;
      const required = Array.isArray(m.required) && (m.required as string[]).includes(property);
      return required && isObject(p) ? p.const : undefined;
    });
    if (values.every((v) => v !== undefined) && new Set(values).size === values.length) return { property, values };
  }
  return undefined;
}

/** Every object of `instance` reached through a `$ref`, starting with `instance` itself as `definition`. */
export function typedNodes(definitions: Record<string, Schema>, definition: string, instance: unknown, pointer = ""): TypedNode[] {
  const out: TypedNode[] = [];
  const visitRef = (name: string, value: unknown, at: string): void => {
    const def = definitions[name];
    if (!def) return;
    const variants = Array.isArray(def.anyOf) ? (def.anyOf as Schema[]) : undefined;
    if (variants && variants.every((v) => refName(v) !== undefined)) {
      const resolved = variants.map((v) => definitions[refName(v) as string] ?? {});
      const tag = tagOf(resolved);
      let chosen: number | undefined;
      let members: string[];
      if (tag !== undefined) {
        // Told apart by a constant (A2ARequest by `method`).
        const i = isObject(value) ? tag.values.indexOf(value[tag.property] as never) : -1;
        chosen = i >= 0 ? i : undefined;
        members = chosen !== undefined ? [tag.property] : [];
      } else {
        const markers = markersOf(resolved);
        const present = markers.map((m, i) => (m !== undefined && isObject(value) && m in value ? i : -1)).filter((i) => i >= 0);
        chosen = present.length === 1 ? present[0] : undefined;
        members = present.map((i) => markers[i] as string);
      }
      out.push({ pointer: at, definition: name, variant: chosen, members, union: true, value });
      if (chosen !== undefined) visitRef(refName(variants[chosen]) as string, value, at);
      return;
    }
    if (variants) {
      const markers = markersOf(variants);
      const members = markers.filter((m): m is string => m !== undefined && isObject(value) && m in value);
      const variant = members.length === 1 ? markers.indexOf(members[0]) : undefined;
      out.push({ pointer: at, definition: name, variant, members, union: false, value });
      if (variant !== undefined) visitSchema(variants[variant] as Schema, value, at);
      return;
    }
    out.push({ pointer: at, definition: name, variant: undefined, members: undefined, union: false, value });
    visitSchema(def, value, at);
  };
  const visitSchema = (schema: Schema, value: unknown, at: string): void => {
    const ref = refName(schema);
    if (ref !== undefined) return visitRef(ref, value, at);
    if (Array.isArray(value)) {
      if (isObject(schema.items)) value.forEach((item, i) => visitSchema(schema.items as Schema, item, `${at}/${i}`));
      return;
    }
    if (!isObject(value)) return;
    if (Array.isArray(schema.anyOf)) {
      // An inline union of definitions (JSONRPCErrorResponse.error): its general member (JSONRPCError, no
      // constants) accepts what any refinement does, so that is the one an object is judged by.
      const refs = (schema.anyOf as Schema[]).map(refName).filter((r): r is string => r !== undefined);
      const consts = (r: string) => Object.entries((definitions[r]?.properties ?? {}) as Schema).filter(([, p]) => isObject(p) && "const" in p);
      const chosen = refs.find((r) => consts(r).length === 0) ?? refs[0];
      if (chosen !== undefined) visitRef(chosen, value, at);
      return;
    }
    const properties = isObject(schema.properties) ? schema.properties : {};
    for (const [key, child] of Object.entries(value)) {
      const sub = isObject(properties[key]) ? (properties[key] as Schema) : isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
      if (sub) visitSchema(sub, child, `${at}/${escapePointer(key)}`);
    }
  };
  visitRef(definition, instance, pointer);
  return out;
}

export interface OwnError {
  /** Absolute JSON pointer in the document. */
  pointer: string;
  /** The definition of the object the error belongs to. */
  definition: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

export interface ValidatorLike {
  (value: unknown): boolean;
  errors?: Array<{ instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }> | null;
}

/**
 * The errors of a document, each reported once by the object it belongs to: every typed object is
 * validated against its own definition (its oneof variant when one member is present); an error inside a
 * nested typed object is left to that object. A oneof with no member or several is the object's error.
 */
export function ownErrors(
  definitions: Record<string, Schema>,
  validator: (definition: string, variant: number | undefined) => ValidatorLike,
  definition: string,
  instance: unknown,
): OwnError[] {
  const nodes = typedNodes(definitions, definition, instance);
  const errors: OwnError[] = [];
  for (const node of nodes) {
    if (node.union && node.variant !== undefined) continue;
    const children = nodes.filter((n) => n !== node && n.pointer.startsWith(`${node.pointer}/`)).map((n) => n.pointer);
    if (node.members !== undefined && node.variant === undefined) {
      if (!isObject(node.value)) {
        errors.push({ pointer: node.pointer, definition: node.definition, keyword: "type", message: "must be object", params: { type: "object" } });
        continue;
      }
      const variants = (definitions[node.definition]?.anyOf as Schema[]).map((v) => definitions[refName(v) ?? ""] ?? v);
      const tag = node.union ? tagOf(variants) : undefined;
      if (tag !== undefined) {
        errors.push({
          pointer: `${node.pointer}/${escapePointer(tag.property)}`,
          definition: node.definition,
          keyword: "tag",
          message: `must be one of ${tag.values.map((v) => JSON.stringify(v)).join(", ")}`,
          params: { property: tag.property, allowedValues: tag.values },
        });
        continue;
      }
      const all = markersOf(variants).filter((m): m is string => m !== undefined);
      errors.push({
        pointer: node.pointer,
        definition: node.definition,
        keyword: "oneof",
        message: node.members.length === 0 ? `must have one of ${all.join(", ")}` : `must have only one of ${node.members.join(", ")}`,
        params: { members: node.members, expected: all },
      });
      continue;
    }
    const validate = validator(node.definition, node.variant);
    if (validate(node.value)) continue;
    for (const e of validate.errors ?? []) {
      const at = node.pointer + e.instancePath;
      if (children.some((c) => at === c || at.startsWith(`${c}/`))) continue;
      errors.push({ pointer: at, definition: node.definition, keyword: e.keyword, message: e.message ?? e.keyword, params: e.params });
    }
  }
  return errors;
}
