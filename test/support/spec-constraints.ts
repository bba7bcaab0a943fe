import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";
import { readSchema, SCHEMA_DIR } from "./project.js";

/**
 * A version's schema with the spec-text constraints of `schema/a2a-<version>.constraints.json` applied,
 * written here independently of the generator (src/ir/validator-schema.ts): a constraint holds on its
 * definition's property, or — `"appliesTo": "requests"` — only where the `params` of a request the
 * request union (A2ARequest) lists reference its definition. The property tests generate from and judge
 * by this: what the specification text allows, not the bare schema.
 */
type Obj = Record<string, unknown>;
interface Constraint {
  definition: string;
  property: string;
  schema: Obj;
  appliesTo?: string;
}

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const refTarget = (node: unknown): string | undefined => (isObj(node) && typeof node.$ref === "string" ? node.$ref.replace(/^#\/(definitions|\$defs)\//, "") : undefined);

export function constraintsOf(version: string): Constraint[] {
  const path = join(SCHEMA_DIR, `a2a-${version}.constraints.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as { constraints: Constraint[] }).constraints : [];
}

export function constrainedSchema(version: string): Obj {
  const schema = structuredClone(readSchema(version));
  const defs = (schema.definitions ?? schema.$defs) as Record<string, Obj>;
  const requestUnion = defs.A2ARequest;
  const members = [...((requestUnion?.anyOf ?? requestUnion?.oneOf ?? []) as unknown[])].map(refTarget).filter((n): n is string => n !== undefined);
  const params = [...new Set(members.map((m) => refTarget((defs[m]?.properties as Obj | undefined)?.params)).filter((n): n is string => n !== undefined))];
  for (const c of constraintsOf(version)) {
    if (c.appliesTo === "requests") {
      for (const name of params) {
        const properties = defs[name]?.properties as Obj | undefined;
        for (const [key, value] of Object.entries(properties ?? {})) {
          if (refTarget(value) === c.definition) (properties as Obj)[key] = { allOf: [value, { properties: { [c.property]: c.schema } }] };
        }
      }
    } else {
      const properties = defs[c.definition]?.properties as Obj | undefined;
      if (properties && isObj(properties[c.property])) properties[c.property] = { allOf: [properties[c.property], c.schema] };
    }
  }
  return schema;
}

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (o: object) => import("ajv").Ajv }).default;
const cache = new Map<string, import("ajv").Ajv>();

/** An Ajv over {@link constrainedSchema}: the reference verdict of the specification text. */
export function constrainedValidator(version: string, definition: string): ValidateFunction {
  let ajv = cache.get(version);
  const schema = constrainedSchema(version);
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: false });
    ajv.addSchema(schema, "a2a");
    cache.set(version, ajv);
  }
  const validate = ajv.getSchema(`a2a#/${"$defs" in schema ? "$defs" : "definitions"}/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in ${version}`);
  return validate;
}
