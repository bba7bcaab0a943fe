import type { ProtocolIR } from "../ir/types.js";
import { isObject, type JsonObject } from "../schema/json.js";

/**
 * The shape of a version's definitions as a value is walked: which fields an object declares (and
 * whether it is closed, as its generated TypeScript type is), the member of a union a value is, and the
 * definition a `$ref` names. Read from the normalized schema in the IR, never from a version number.
 */
export class SchemaShapes {
  private readonly definitions = new Map<string, JsonObject>();
  readonly ir: ProtocolIR;

  constructor(ir: ProtocolIR) {
    this.ir = ir;
    for (const type of ir.types) this.definitions.set(type.name, type.schema);
  }

  definition(name: string): JsonObject | undefined {
    return this.definitions.get(name);
  }

  /** The definition a `$ref` names, followed until a schema that is not a bare reference. */
  resolve(schema: JsonObject): { schema: JsonObject; name: string | undefined } {
    let current = schema;
    let name: string | undefined;
    for (let hops = 0; hops < 16 && typeof current.$ref === "string"; hops++) {
      const ref = refName(current.$ref);
      const target = ref === undefined ? undefined : this.definitions.get(ref);
      if (!target) break;
      name = ref;
      current = target;
    }
    return { schema: current, name };
  }

  /** The members of a union schema (anyOf / oneOf), undefined when it is not one. */
  members(schema: JsonObject): JsonObject[] | undefined {
    const list = schema.anyOf ?? schema.oneOf;
    return Array.isArray(list) ? list.filter(isObject) : undefined;
  }

  /** The object a schema describes: its declared fields, whether others are refused, the schema of map values. */
  object(schema: JsonObject): ObjectShape | undefined {
    const properties = isObject(schema.properties) ? schema.properties : undefined;
    const additional = schema.additionalProperties;
    if (!properties && !isObject(additional)) return undefined;
    return {
      properties: Object.fromEntries(Object.entries(properties ?? {}).filter((e): e is [string, JsonObject] => isObject(e[1]))),
      required: Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [],
      // As in the generated models: an object that declares properties and no additionalProperties is closed.
      closed: properties !== undefined && (additional === undefined || additional === false),
      values: isObject(additional) ? additional : undefined,
    };
  }

  /** The schema of array items, when the schema is an array. */
  items(schema: JsonObject): JsonObject | undefined {
    return isObject(schema.items) ? schema.items : undefined;
  }

  /**
   * The union member a value is: the one whose constant tag it carries, else the one whose fields it
   * matches best (required fields present, then known fields). `fits`: it has the member's tag and
 * required fields. Undefined when no member is an object.
   */
  member(union: JsonObject[], value: JsonObject): { index: number; schema: JsonObject; name: string | undefined; fits: boolean } | undefined {
    let best: { index: number; schema: JsonObject; name: string | undefined; score: number; fits: boolean } | undefined;
    for (const [index, raw] of union.entries()) {
      const { schema, name } = this.resolve(raw);
      const shape = this.object(schema);
      if (!shape) continue;
      let score = 0;
      let fits = true;
      for (const [key, property] of Object.entries(shape.properties)) {
        const constant = constOf(property);
        if (constant === undefined || !(key in value)) continue;
        score += value[key] === constant ? 1000 : -1000;
        if (value[key] !== constant) fits = false;
      }
      for (const key of shape.required) {
        score += key in value ? 10 : -10;
        if (!(key in value)) fits = false;
      }
      for (const key of Object.keys(value)) score += key in shape.properties ? 1 : shape.closed ? -1 : 0;
      if (!best || score > best.score) best = { index, schema, name, score, fits };
    }
    return best && { index: best.index, schema: best.schema, name: best.name, fits: best.fits };
  }
}

export interface ObjectShape {
  properties: Record<string, JsonObject>;
  required: string[];
  closed: boolean;
  /** The schema of the values of a map (`additionalProperties: {…}`). */
  values: JsonObject | undefined;
}

/** The definition name of a local `$ref` ("#/definitions/AgentCard" → "AgentCard"). */
export function refName(ref: string): string | undefined {
  const m = /^#\/(?:definitions|\$defs)\/(.+)$/.exec(ref);
  return m ? (m[1] as string).replace(/~1/g, "/").replace(/~0/g, "~") : undefined;
}

/** The constant a property schema fixes (`const`, or a one-value `enum`). */
export function constOf(schema: JsonObject): unknown {
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return schema.enum[0];
  return undefined;
}
