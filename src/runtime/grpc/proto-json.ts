/**
 * ProtoJSON (https://protobuf.dev/programming-guides/json/) for the gRPC binding: the A2A service speaks the
 * JSON form of the proto's messages (camelCase names, enums as their names, google.protobuf.Struct, Value,
 * Timestamp in their JSON forms, bytes as base64, a oneof by which member is present), the wire speaks
 * protobuf. This converts a decoded protobufjs message to that JSON and a JSON value back to the plain
 * object protobufjs encodes, walking the message's reflection, so it works for any version's proto.
 *
 * Bad input never throws anything but a {@link ProtoJsonError} naming the field (`message.parts[0].text`)
 * and what is wrong with it.
 */
import protobuf from "protobufjs/light.js";
import { ProtoJsonError } from "../wire/shapes.js";

/** A field of the input that cannot be converted: where (a JSON path, camelCase) and why. */
export { ProtoJsonError };

export interface ToJsonOptions {
  /**
   * An enum number the proto does not name: "error" (a ProtoJsonError naming the field; what a server does
   * with a request) or "number" (ProtoJSON's rule: the number itself; what a client does with a newer
   * server's answer). Default "error".
   */
  unknownEnums?: "error" | "number";
  /**
   * Whether a field the proto marks `(google.api.field_behavior) = REQUIRED` is written even at its default
   * ("", 0, [], the enum's zero), as the JSON-RPC binding writes it (a client reading an answer: true), or
   * left out like any other default, so that a validator reports it missing (a server reading a request:
   * false, the default).
   */
  requiredDefaults?: boolean;
}

const FIELD_BEHAVIOR = "(google.api.field_behavior)";

/** Whether the proto marks a field REQUIRED. */
export function isRequiredField(field: protobuf.Field): boolean {
  const behavior: unknown = field.options?.[FIELD_BEHAVIOR];
  return (Array.isArray(behavior) ? behavior : [behavior]).some((b) => b === "REQUIRED" || b === 2);
}

export interface FromJsonOptions {
  /**
   * Fields the message does not declare: an error naming them (default; what a client does with the params
   * it is given, so a typo is caught) or left out (what a server does with its own answers: the wire cannot
   * carry them, and a card's vendor fields must not break GetExtendedAgentCard).
   */
  ignoreUnknownFields?: boolean;
}

type Plain = { [key: string]: unknown };

/** The field's ProtoJSON name: its `json_name` option, else lowerCamelCase of its proto name. */
export function jsonName(field: protobuf.Field): string {
  const explicit = field.options?.["json_name"];
  if (typeof explicit === "string") return explicit;
  return field.name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

interface FieldInfo {
  field: protobuf.Field;
  json: string;
  /** The proto name differs from the JSON name (both are accepted, so the field can be given twice). */
  aliased: boolean;
  /** The members of the real oneof the field belongs to (proto3 `optional` fields are not in one). */
  oneof: protobuf.OneOf | undefined;
  required: boolean;
  /** A google.protobuf.Value field (where JSON null is a value, not "not set"). */
  isValue: boolean;
  /** A scalar whose presence is tracked (a oneof member or a proto3 `optional` field): set even at its default. */
  tracked: boolean;
  /** The message type of a singular message field (not a map, not repeated). */
  message: protobuf.Type | undefined;
}

interface TypeInfo {
  /** The JSON form of a well-known type, if it is one (looked up once: `fullName` is computed on each read). */
  wkt: WellKnown | undefined;
  fields: FieldInfo[];
  /** By JSON name and by proto name (ProtoJSON parsers accept both). */
  byName: Map<string, FieldInfo>;
}

const typeInfos = new WeakMap<protobuf.Type, TypeInfo>();

function info(type: protobuf.Type): TypeInfo {
  let found = typeInfos.get(type);
  if (found) return found;
  const fields = type.fieldsArray.map((field) => {
    field.resolve();
    // A proto3 `optional` field sits in a synthetic oneof of its own: presence, not a choice.
    const oneof = field.partOf && field.options?.["proto3_optional"] !== true ? field.partOf : undefined;
    const isValue = field.resolvedType instanceof protobuf.Type && field.resolvedType.fullName === ".google.protobuf.Value";
    const json = jsonName(field);
    const tracked = oneof !== undefined || field.options?.["proto3_optional"] === true;
    const message = !field.map && !field.repeated && field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    return { field, json, aliased: json !== field.name, oneof, required: isRequiredField(field), isValue, tracked, message };
  });
  const byName = new Map<string, FieldInfo>();
  for (const f of fields) {
    byName.set(f.json, f);
    byName.set(f.field.name, f);
  }
  found = { wkt: WELL_KNOWN[type.fullName], fields, byName };
  typeInfos.set(type, found);
  return found;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function has(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${String(value)}`;
}

function isPlainObject(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

// ---------------------------------------------------------------------------------------------------
// protobuf → ProtoJSON

const NO_OPTIONS: ToJsonOptions = {};

/** The ProtoJSON value of a decoded message of `type`. */
export function messageToJson(type: protobuf.Type, message: unknown, options: ToJsonOptions = NO_OPTIONS, path = ""): unknown {
  const { wkt, fields } = info(type);
  if (wkt) return wkt.toJson(type, (message ?? {}) as Plain, options, path);
  const source = (message ?? {}) as Plain;
  const out: Plain = {};
  for (const { field, json, oneof, required, tracked, message: messageType } of fields) {
    const value = source[field.name];
    const keepDefault = required && options.requiredDefaults === true && oneof === undefined;
    // Nested values are read at the relative path "" and an error's path is prefixed on its way out (within()).
    if (field.map) {
      if (!isPlainObject(value)) continue;
      const entries = Object.keys(value);
      if (entries.length === 0 && !keepDefault) continue;
      const map: Plain = {};
      for (const key of entries) {
        try {
          map[key] = valueToJson(field, value[key], options, "");
        } catch (error) {
          throw within(error, `${join(path, json)}.${key}`);
        }
      }
      out[json] = map;
    } else if (field.repeated) {
      if (!Array.isArray(value) || value.length === 0) {
        if (keepDefault) out[json] = [];
        continue;
      }
      const list: unknown[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        try {
          list[i] = valueToJson(field, value[i], options, "");
        } catch (error) {
          throw within(error, `${join(path, json)}[${i}]`);
        }
      }
      out[json] = list;
    } else if (messageType !== undefined) {
      if (value === null || value === undefined) continue;
      try {
        out[json] = messageToJson(messageType, value, options, "");
      } catch (error) {
        throw within(error, join(path, json));
      }
    } else {
      // A member of a oneof or a proto3 `optional` field is present when set, even at its default;
      // any other scalar is left out at its default (ProtoJSON).
      if (tracked ? !has(source, field.name) || value === null || value === undefined : isDefault(value) && !keepDefault) continue;
      try {
        out[json] = valueToJson(field, value ?? field.typeDefault, options, "");
      } catch (error) {
        throw within(error, join(path, json));
      }
    }
  }
  return out;
}

function valueToJson(field: protobuf.Field, value: unknown, options: ToJsonOptions, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageToJson(resolved, value, options, path);
  if (resolved instanceof protobuf.Enum) {
    const name = resolved.valuesById[value as number];
    if (name !== undefined) return name;
    if (options.unknownEnums === "number") return value;
    throw new ProtoJsonError(path, `unknown value ${String(value)} of enum ${resolved.name}`);
  }
  switch (field.type) {
    case "bytes":
      return bytesToBase64(value);
    case "int64":
    case "uint64":
    case "sint64":
    case "fixed64":
    case "sfixed64":
      return String(value);
    case "double":
    case "float": {
      const n = value as number;
      if (Number.isNaN(n)) return "NaN";
      if (n === Infinity) return "Infinity";
      if (n === -Infinity) return "-Infinity";
      return n;
    }
    default:
      return value;
  }
}

function isDefault(value: unknown): boolean {
  if (value === null || value === undefined || value === 0 || value === "" || value === false) return true;
  if (value instanceof Uint8Array) return value.length === 0;
  if (typeof value === "object" && typeof (value as { toString(): string }).toString === "function") return String(value) === "0"; // a Long
  return false;
}

function bytesToBase64(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  return typeof value === "string" ? value : "";
}

// ---------------------------------------------------------------------------------------------------
// ProtoJSON → protobuf (a plain object protobufjs encodes)

/** The plain object protobufjs encodes for the ProtoJSON value `json` of a `type` message. */
/** How deep messages may nest: protoc's and protobufjs's default recursion limit (decoding enforces the same). */
export const MAX_DEPTH = 100;
let depth = 0;

export function messageFromJson(type: protobuf.Type, json: unknown, path = "", options: FromJsonOptions = {}): Plain {
  if (depth >= MAX_DEPTH) throw new ProtoJsonError(path, `nested deeper than ${MAX_DEPTH} messages`);
  depth++;
  try {
    return fromJson(type, json, path, options);
  } finally {
    depth--;
  }
}

/**
 * An error of a nested value, its field path prefixed with where that value is (`base`). Both conversions
 * read nested values at the relative path "" and build a field's full path only when it fails: building
 * it for every field that converts fine was most of the time of encoding an answer.
 */
function within(error: unknown, base: string): unknown {
  if (!(error instanceof ProtoJsonError)) return error;
  const field = error.field === "" ? base : base === "" ? error.field : error.field.startsWith("[") ? `${base}${error.field}` : `${base}.${error.field}`;
  return new ProtoJsonError(field, error.description);
}

function fromJson(type: protobuf.Type, json: unknown, path: string, options: FromJsonOptions): Plain {
  const { wkt, byName } = info(type);
  if (wkt) return wkt.fromJson(type, json, path);
  if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected an object (${type.name}), got ${describe(json)}`);
  const out: Plain = {};
  // The oneof members set so far (JSON names), made for a message that sets one.
  let oneofSeen: Map<protobuf.OneOf, string> | undefined;
  for (const key of Object.keys(json)) {
    const value = json[key];
    const entry = byName.get(key);
    if (!entry) {
      if (options.ignoreUnknownFields) continue;
      throw new ProtoJsonError(join(path, key), `unknown field of ${type.name}`);
    }
    const { field, json: name, oneof } = entry;
    if (entry.aliased && out[field.name] !== undefined) throw new ProtoJsonError(join(path, name), `given twice (as "${name}" and "${field.name}")`);
    if (value === null && !(entry.isValue && !field.repeated && !field.map)) continue; // null is "not set"
    if (oneof) {
      oneofSeen ??= new Map();
      const other = oneofSeen.get(oneof);
      if (other !== undefined) throw new ProtoJsonError(join(path, name), `only one of ${oneofMembers(oneof)} may be set; ${other} is set too`);
      oneofSeen.set(oneof, name);
    }
    if (field.map) {
      if (!isPlainObject(value)) throw new ProtoJsonError(join(path, name), `expected an object (a map), got ${describe(value)}`);
      const map: Plain = {};
      for (const k of Object.keys(value)) {
        try {
          map[k] = valueFromJson(field, value[k], "", options);
        } catch (error) {
          throw within(error, `${join(path, name)}.${k}`);
        }
      }
      out[field.name] = map;
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw new ProtoJsonError(join(path, name), `expected an array, got ${describe(value)}`);
      const list: unknown[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        try {
          list[i] = valueFromJson(field, value[i], "", options);
        } catch (error) {
          throw within(error, `${join(path, name)}[${i}]`);
        }
      }
      out[field.name] = list;
    } else {
      try {
        out[field.name] = valueFromJson(field, value, "", options);
      } catch (error) {
        throw within(error, join(path, name));
      }
    }
  }
  return out;
}

function oneofMembers(oneof: protobuf.OneOf): string {
  return oneof.fieldsArray.map((f) => `"${jsonName(f)}"`).join(", ");
}

const INT32 = /^(int32|sint32|sfixed32)$/;
const UINT32 = /^(uint32|fixed32)$/;
const INT64 = /^(int64|sint64|sfixed64)$/;
const UINT64 = /^(uint64|fixed64)$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function valueFromJson(field: protobuf.Field, value: unknown, path: string, options: FromJsonOptions = {}): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageFromJson(resolved, value, path, options);
  if (resolved instanceof protobuf.Enum) {
    if (typeof value === "string") {
      const number = resolved.values[value];
      if (number === undefined) throw new ProtoJsonError(path, `unknown value ${JSON.stringify(value)} of enum ${resolved.name}; expected one of ${Object.keys(resolved.values).join(", ")}`);
      return number;
    }
    if (typeof value === "number" && Number.isInteger(value)) {
      if (resolved.valuesById[value] === undefined) throw new ProtoJsonError(path, `unknown value ${value} of enum ${resolved.name}`);
      return value;
    }
    throw new ProtoJsonError(path, `expected a ${resolved.name} name, got ${describe(value)}`);
  }
  const type = field.type;
  if (type === "string") {
    if (typeof value !== "string") throw new ProtoJsonError(path, `expected a string, got ${describe(value)}`);
    return value;
  }
  if (type === "bool") {
    if (typeof value !== "boolean") throw new ProtoJsonError(path, `expected a boolean, got ${describe(value)}`);
    return value;
  }
  if (type === "bytes") {
    if (typeof value !== "string" || !BASE64.test(value)) throw new ProtoJsonError(path, `expected base64 bytes, got ${describe(value)}`);
    return Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  }
  if (type === "double" || type === "float") {
    if (typeof value === "number") return value;
    if (value === "NaN") return NaN;
    if (value === "Infinity") return Infinity;
    if (value === "-Infinity") return -Infinity;
    if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
    throw new ProtoJsonError(path, `expected a number, got ${describe(value)}`);
  }
  const n = typeof value === "number" ? value : typeof value === "string" && /^-?\d+(\.0+)?$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n)) throw new ProtoJsonError(path, `expected an integer (${type}), got ${describe(value)}`);
  if (INT32.test(type) && (n < -2147483648 || n > 2147483647)) throw new ProtoJsonError(path, `${n} is out of the range of ${type}`);
  if (UINT32.test(type) && (n < 0 || n > 4294967295)) throw new ProtoJsonError(path, `${n} is out of the range of ${type}`);
  if ((INT64.test(type) || UINT64.test(type)) && !Number.isSafeInteger(n)) throw new ProtoJsonError(path, `${String(value)} is beyond the integers this runtime carries exactly (2^53)`);
  if (UINT64.test(type) && n < 0) throw new ProtoJsonError(path, `${n} is out of the range of ${type}`);
  return n;
}

// ---------------------------------------------------------------------------------------------------
// The well-known types with their own JSON form

interface WellKnown {
  toJson(type: protobuf.Type, message: Plain, options: ToJsonOptions, path: string): unknown;
  fromJson(type: protobuf.Type, json: unknown, path: string): Plain;
}

/** The name protobufjs gives field number `id` of a well-known type (its bundled definitions use camelCase). */
function f(type: protobuf.Type, id: number): string {
  const field = type.fieldsById[id];
  if (!field) throw new Error(`${type.fullName} has no field ${id}`);
  return field.name;
}

function child(type: protobuf.Type, id: number): protobuf.Type {
  const field = type.fieldsById[id];
  field?.resolve();
  if (!field || !(field.resolvedType instanceof protobuf.Type)) throw new Error(`${type.fullName} field ${id} is not a message`);
  return field.resolvedType;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|([+-])(\d{2}):(\d{2}))$/;

const wrapper: WellKnown = {
  toJson: (type, message, options, path) => valueToJson(type.fieldsById[1] as protobuf.Field, message[f(type, 1)] ?? 0, options, path),
  fromJson: (type, json, path) => ({ [f(type, 1)]: valueFromJson(type.fieldsById[1] as protobuf.Field, json, path) }),
};

const WELL_KNOWN: { [fullName: string]: WellKnown } = {
  ".google.protobuf.Struct": {
    toJson: (type, message, options, path) => {
      const fields = message[f(type, 1)];
      const out: Plain = {};
      if (isPlainObject(fields)) {
        const valueType = child(type, 1);
        for (const key of Object.keys(fields)) out[key] = messageToJson(valueType, fields[key], options, join(path, key));
      }
      return out;
    },
    fromJson: (type, json, path) => {
      if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected an object, got ${describe(json)}`);
      const valueType = child(type, 1);
      const fields: Plain = {};
      for (const key of Object.keys(json)) fields[key] = messageFromJson(valueType, json[key], join(path, key));
      return { [f(type, 1)]: fields };
    },
  },
  ".google.protobuf.ListValue": {
    toJson: (type, message, options, path) => {
      const values = message[f(type, 1)];
      const valueType = child(type, 1);
      return Array.isArray(values) ? values.map((v, i) => messageToJson(valueType, v, options, `${path}[${i}]`)) : [];
    },
    fromJson: (type, json, path) => {
      if (!Array.isArray(json)) throw new ProtoJsonError(path, `expected an array, got ${describe(json)}`);
      const valueType = child(type, 1);
      return { [f(type, 1)]: json.map((v: unknown, i: number) => messageFromJson(valueType, v, `${path}[${i}]`)) };
    },
  },
  ".google.protobuf.Value": {
    toJson: (type, message, options, path) => {
      // 1 null_value, 2 number_value, 3 string_value, 4 bool_value, 5 struct_value, 6 list_value
      if (has(message, f(type, 2)) && message[f(type, 2)] !== undefined) {
        const n = message[f(type, 2)] as number;
        if (!Number.isFinite(n)) throw new ProtoJsonError(path, `${n} has no JSON form`);
        return n;
      }
      if (has(message, f(type, 3)) && typeof message[f(type, 3)] === "string") return message[f(type, 3)];
      if (has(message, f(type, 4)) && typeof message[f(type, 4)] === "boolean") return message[f(type, 4)];
      if (has(message, f(type, 5)) && message[f(type, 5)] != null) return messageToJson(child(type, 5), message[f(type, 5)], options, path);
      if (has(message, f(type, 6)) && message[f(type, 6)] != null) return messageToJson(child(type, 6), message[f(type, 6)], options, path);
      return null;
    },
    fromJson: (type, json, path) => {
      if (json === null) return { [f(type, 1)]: 0 };
      if (typeof json === "number") {
        if (!Number.isFinite(json)) throw new ProtoJsonError(path, `${json} has no JSON form`);
        return { [f(type, 2)]: json };
      }
      if (typeof json === "string") return { [f(type, 3)]: json };
      if (typeof json === "boolean") return { [f(type, 4)]: json };
      if (Array.isArray(json)) return { [f(type, 6)]: messageFromJson(child(type, 6), json, path) };
      if (isPlainObject(json)) return { [f(type, 5)]: messageFromJson(child(type, 5), json, path) };
      throw new ProtoJsonError(path, `expected a JSON value, got ${describe(json)}`);
    },
  },
  ".google.protobuf.Timestamp": {
    toJson: (type, message, _options, path) => {
      const seconds = Number(String(message[f(type, 1)] ?? 0));
      const nanos = Number(message[f(type, 2)] ?? 0);
      const millis = seconds * 1000;
      if (!Number.isFinite(millis) || Math.abs(millis) > 8.64e15 || nanos < 0 || nanos > 999_999_999) {
        throw new ProtoJsonError(path, `timestamp out of range (${seconds}s ${nanos}ns)`);
      }
      const base = new Date(millis).toISOString().replace(/\.\d{3}Z$/, "");
      if (nanos === 0) return `${base}Z`;
      const digits = String(nanos).padStart(9, "0");
      const fraction = digits.endsWith("000000") ? digits.slice(0, 3) : digits.endsWith("000") ? digits.slice(0, 6) : digits;
      return `${base}.${fraction}Z`;
    },
    fromJson: (type, json, path) => {
      const match = typeof json === "string" ? TIMESTAMP.exec(json) : null;
      if (!match) throw new ProtoJsonError(path, `expected an RFC 3339 timestamp such as "2025-01-01T12:00:00Z", got ${describe(json)}`);
      const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = match;
      const utc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
      const date = new Date(utc);
      if (Number.isNaN(utc) || date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) {
        throw new ProtoJsonError(path, `not a valid date-time: ${JSON.stringify(json)}`);
      }
      const offset = sign ? (sign === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60 : 0;
      return { [f(type, 1)]: utc / 1000 - offset, [f(type, 2)]: frac ? Number(frac.padEnd(9, "0")) : 0 };
    },
  },
  ".google.protobuf.Duration": {
    toJson: (type, message) => {
      const seconds = Number(String(message[f(type, 1)] ?? 0));
      const nanos = Number(message[f(type, 2)] ?? 0);
      const negative = seconds < 0 || nanos < 0;
      const digits = String(Math.abs(nanos)).padStart(9, "0").replace(/0+$/, "");
      return `${negative ? "-" : ""}${Math.abs(seconds)}${digits ? `.${digits}` : ""}s`;
    },
    fromJson: (type, json, path) => {
      const match = typeof json === "string" ? /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(json) : null;
      if (!match) throw new ProtoJsonError(path, `expected a duration such as "1.5s", got ${describe(json)}`);
      const sign = match[1] ? -1 : 1;
      return { [f(type, 1)]: sign * Number(match[2]), [f(type, 2)]: sign * Number((match[3] ?? "").padEnd(9, "0") || "0") };
    },
  },
  ".google.protobuf.Empty": {
    toJson: () => ({}),
    fromJson: (_type, json, path) => {
      if (!isPlainObject(json)) throw new ProtoJsonError(path, `expected an empty object, got ${describe(json)}`);
      const extra = Object.keys(json)[0];
      if (extra !== undefined) throw new ProtoJsonError(join(path, extra), "unknown field of Empty");
      return {};
    },
  },
  ".google.protobuf.DoubleValue": wrapper,
  ".google.protobuf.FloatValue": wrapper,
  ".google.protobuf.Int64Value": wrapper,
  ".google.protobuf.UInt64Value": wrapper,
  ".google.protobuf.Int32Value": wrapper,
  ".google.protobuf.UInt32Value": wrapper,
  ".google.protobuf.BoolValue": wrapper,
  ".google.protobuf.StringValue": wrapper,
  ".google.protobuf.BytesValue": wrapper,
};
