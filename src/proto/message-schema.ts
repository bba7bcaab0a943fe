/**
 * The proto's messages, enums and fields as JSON Schema (ProtoJSON form): the well-known types, the
 * scalars, field presence and JSON names, oneofs, and the proto comments as descriptions. Used by
 * to-json-schema.ts, which walks the proto and adds the JSON-RPC binding.
 */
import type protobuf from "protobufjs";
import { protobufjs } from "./protobufjs.js";
import { CodegenError } from "../errors.js";

export type Schema = Record<string, unknown>;

const INT32 = { minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { minimum: 0, maximum: 4294967295 };
const BASE64 = "^[A-Za-z0-9+/_-]*={0,2}$";
const FIELD_BEHAVIOR = "(google.api.field_behavior)";

// ---------------------------------------------------------------------------------------------------
// Comments

/**
 * A proto comment as a description: AIP-style internal comments `(-- ... --)`, linter directives
 * (`protolint:...`) and `Next ID: N` bookkeeping lines are dropped.
 */
export function cleanComment(comment: string | null | undefined): string | undefined {
  if (!comment) return undefined;
  const text = comment
    .replace(/\(--[\s\S]*?--\)/g, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => !/^\s*protolint:/.test(line) && !/^\s*Next ID: \d+\s*$/.test(line))
    .join("\n")
    .trim();
  return text === "" ? undefined : text;
}

export function withDescription(schema: Schema, description: string | undefined): Schema {
  if (description === undefined) return schema;
  if (typeof schema.$ref === "string") return { $ref: schema.$ref, description };
  const existing = typeof schema.description === "string" ? `\n\n${schema.description}` : "";
  const { description: _dropped, ...rest } = schema;
  return { description: description + existing, ...rest };
}

// ---------------------------------------------------------------------------------------------------
// Types

/** Inline schemas for the google.protobuf well-known types, in their ProtoJSON form. */
export function wellKnown(fullName: string): (() => Schema) | undefined {
  const int64 = (signed: boolean) => (): Schema => ({
    description: "A 64-bit integer: ProtoJSON writes it as a decimal string; readers also accept a JSON number.",
    type: ["string", "integer"],
    pattern: signed ? "^-?[0-9]+$" : "^[0-9]+$",
  });
  const table: Record<string, () => Schema> = {
    ".google.protobuf.Timestamp": () => ({ type: "string", format: "date-time" }),
    ".google.protobuf.Duration": () => ({ type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$" }),
    ".google.protobuf.Struct": () => ({ type: "object", additionalProperties: {} }),
    ".google.protobuf.Value": () => ({}),
    ".google.protobuf.ListValue": () => ({ type: "array", items: {} }),
    ".google.protobuf.NullValue": () => ({ type: "null" }),
    ".google.protobuf.Empty": () => ({ type: "object" }),
    ".google.protobuf.Any": () => ({ type: "object", properties: { "@type": { type: "string" } }, required: ["@type"] }),
    ".google.protobuf.FieldMask": () => ({ type: "string" }),
    ".google.protobuf.DoubleValue": () => ({ type: "number" }),
    ".google.protobuf.FloatValue": () => ({ type: "number" }),
    ".google.protobuf.Int64Value": int64(true),
    ".google.protobuf.UInt64Value": int64(false),
    ".google.protobuf.Int32Value": () => ({ type: "integer", ...INT32 }),
    ".google.protobuf.UInt32Value": () => ({ type: "integer", ...UINT32 }),
    ".google.protobuf.BoolValue": () => ({ type: "boolean" }),
    ".google.protobuf.StringValue": () => ({ type: "string" }),
    ".google.protobuf.BytesValue": () => ({ type: "string", pattern: BASE64 }),
  };
  return table[fullName];
}

function scalarSchema(type: string): Schema | undefined {
  switch (type) {
    case "string":
      return { type: "string" };
    case "bool":
      return { type: "boolean" };
    case "int32":
    case "sint32":
    case "sfixed32":
      return { type: "integer", ...INT32 };
    case "uint32":
    case "fixed32":
      return { type: "integer", ...UINT32 };
    case "int64":
    case "sint64":
    case "sfixed64":
    case "uint64":
    case "fixed64": {
      const signed = !type.startsWith("u") && type !== "fixed64";
      return {
        description: "A 64-bit integer: ProtoJSON writes it as a decimal string; readers also accept a JSON number.",
        type: ["string", "integer"],
        pattern: signed ? "^-?[0-9]+$" : "^[0-9]+$",
      };
    }
    case "double":
    case "float":
      return { type: "number" };
    case "bytes":
      return { description: "Bytes, base64-encoded (ProtoJSON).", type: "string", pattern: BASE64 };
    default:
      return undefined;
  }
}

export function enumSchema(type: protobuf.Enum): Schema {
  const names = Object.keys(type.values);
  const valueDocs = names
    .map((name) => [name, cleanComment(type.comments[name])] as const)
    .filter(([, doc]) => doc !== undefined)
    .map(([name, doc]) => `- \`${name}\`: ${(doc as string).replace(/\n/g, " ")}`);
  const description = [cleanComment(type.comment), valueDocs.length > 0 ? valueDocs.join("\n") : undefined].filter((d) => d !== undefined).join("\n\n");
  return { ...(description ? { description } : {}), type: "string", enum: names };
}

export function isRequired(field: protobuf.Field): boolean {
  const values: unknown[] = [];
  const option = field.options?.[FIELD_BEHAVIOR];
  if (option !== undefined) values.push(option);
  for (const parsed of (field.parsedOptions ?? []) as Array<Record<string, unknown>>) {
    if (FIELD_BEHAVIOR in parsed) values.push(parsed[FIELD_BEHAVIOR]);
  }
  return values.flat().some((v) => v === "REQUIRED" || v === 2);
}

function jsonNameOf(field: protobuf.Field): string {
  const explicit = (field as unknown as { jsonName?: string }).jsonName;
  if (typeof explicit === "string" && explicit !== "") return explicit;
  // protoc's ToJsonName: drop each underscore and upper-case the letter after it.
  let out = "";
  let upper = false;
  for (const ch of field.name) {
    if (ch === "_") upper = true;
    else {
      out += upper ? ch.toUpperCase() : ch;
      upper = false;
    }
  }
  return out;
}

export type RefTo = (type: protobuf.Type | protobuf.Enum) => Schema;

function valueSchema(field: protobuf.Field, type: string, refTo: RefTo, where: string): Schema {
  const scalar = scalarSchema(type);
  if (scalar) return scalar;
  if (field.resolvedType) return refTo(field.resolvedType);
  throw new CodegenError(`field ${where} has type "${type}", which does not resolve`);
}

function fieldSchema(field: protobuf.Field, refTo: RefTo, where: string): Schema {
  field.resolve();
  const description = cleanComment(field.comment);
  const value = valueSchema(field, field.type, refTo, where);
  let schema: Schema;
  if (field instanceof protobufjs().MapField) {
    const keyType = field.keyType;
    const keys: Schema | undefined =
      keyType === "bool"
        ? { enum: ["true", "false"] }
        : keyType === "string"
          ? undefined
          : { pattern: keyType.startsWith("u") || keyType === "fixed32" || keyType === "fixed64" ? "^[0-9]+$" : "^-?[0-9]+$" };
    schema = { type: "object", additionalProperties: value, ...(keys ? { propertyNames: keys } : {}) };
  } else if (field.repeated) {
    // A required repeated field may be empty (a page of no tasks): required says "present", not
    // "non-empty", although specification §5.7 asks required arrays to have an element.
    schema = { type: "array", items: value };
  } else {
    schema = value;
  }
  return withDescription(schema, description);
}

export function messageSchema(type: protobuf.Type, refTo: RefTo, warnings: string[]): Schema {
  const name = type.fullName.replace(/^\./, "");
  const description = cleanComment(type.comment);
  // proto3 `optional` fields come as synthetic one-member oneofs: they are plain optional fields here.
  const oneofs = type.oneofsArray.filter((o) => !o.fieldsArray.every((f) => f.options?.proto3_optional === true));
  const inOneof = new Map<string, protobuf.OneOf>();
  for (const oneof of oneofs) for (const f of oneof.fieldsArray) inOneof.set(f.name, oneof);

  const properties = new Map<string, Schema>();
  const required: string[] = [];
  const seenJson = new Map<string, string>();
  for (const field of type.fieldsArray) {
    const json = jsonNameOf(field);
    const clash = seenJson.get(json);
    if (clash !== undefined) throw new CodegenError(`fields "${clash}" and "${field.name}" of ${name} have the same JSON name "${json}"`);
    seenJson.set(json, field.name);
    const req = isRequired(field) && !inOneof.has(field.name);
    if (isRequired(field) && inOneof.has(field.name)) warnings.push(`${name}.${field.name} is REQUIRED inside oneof "${inOneof.get(field.name)?.name}": the oneof already requires one member; the annotation is ignored`);
    properties.set(field.name, fieldSchema(field, refTo, `${name}.${field.name}`));
    if (req) required.push(json);
  }
  const objectOf = (fields: protobuf.Field[], extraRequired: string[]): Schema => {
    const props: Schema = {};
    for (const f of fields) props[jsonNameOf(f)] = properties.get(f.name) as Schema;
    const req = [...required, ...extraRequired];
    return { type: "object", properties: props, ...(req.length > 0 ? { required: req } : {}) };
  };
  const common = type.fieldsArray.filter((f) => !inOneof.has(f.name));
  if (oneofs.length === 0) return withDescription(objectOf(common, []), description);

  // One variant per way of choosing a member of every oneof; a variant declares only its members, so each
  // variant requires a property no other variant declares (a "presence" union), and forbids the others.
  let choices: protobuf.Field[][] = [[]];
  for (const oneof of oneofs) choices = choices.flatMap((chosen) => oneof.fieldsArray.map((member) => [...chosen, member]));
  if (choices.length > 64) throw new CodegenError(`${name} has ${choices.length} combinations of oneof members; at most 64 are supported`);
  if (oneofs.length > 1) warnings.push(`${name} has ${oneofs.length} oneofs: modelled as ${choices.length} variants, which no single property tells apart`);
  const variants = choices.map((chosen) => {
    const chosenNames = new Set(chosen.map((f) => f.name));
    const fields = type.fieldsArray.filter((f) => !inOneof.has(f.name) || chosenNames.has(f.name));
    const others = oneofs.flatMap((o) => o.fieldsArray.filter((f) => !chosenNames.has(f.name))).map(jsonNameOf);
    const variant = objectOf(fields, chosen.map(jsonNameOf));
    const which = chosen.map((f) => `\`${jsonNameOf(f)}\``).join(" and ");
    const out: Schema = { description: `${type.name} with ${which} set (oneof ${oneofs.map((o) => `\`${o.name}\``).join(", ")}).`, ...variant };
    if (others.length === 1) out.not = { required: others };
    else if (others.length > 1) out.not = { anyOf: others.map((o) => ({ required: [o] })) };
    return out;
  });
  const oneofDocs = oneofs.map((o) => cleanComment(o.comment)).filter((d): d is string => d !== undefined);
  const exactly = `Exactly one of ${oneofs.map((o) => o.fieldsArray.map((f) => `\`${jsonNameOf(f)}\``).join(", ")).join("; and one of ")} is present.`;
  return { description: [description, ...oneofDocs, exactly].filter((d) => d !== undefined).join("\n\n"), anyOf: variants };
}

