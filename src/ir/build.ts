import { basename } from "node:path";
import { CodegenError, joinPointer } from "../errors.js";
import { isObject, type JsonObject } from "../schema/json.js";
import type { NormalizedSchema } from "../schema/normalize.js";
import { refName } from "../schema/normalize.js";
import type { Overlay } from "./overlay.js";
import { METHOD_ROLES, type EnumInfo, type ErrorInfo, type MethodInfo, type MethodRole, type ProtocolIR, type TypeDecl, type TypeKind, type UnionInfo } from "./types.js";
import { buildProfile } from "./profile.js";
import { inputFieldsOf } from "./input-fields.js";
import { findUnions } from "./unions.js";
import { nameUnionMembers } from "./member-names.js";
import { refuseAliasCycles } from "./aliases.js";
import { findCoreTypes } from "./core-types.js";
import { protoJsonDefaults } from "./proto-defaults.js";
import { typeNameOf } from "./type-names.js";


export interface BuildInput {
  schema: NormalizedSchema;
  overlay: Overlay;
  specVersion: string;
  versionBasis: ProtocolIR["versionBasis"];
  file: string;
  sha256: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function buildIR(input: BuildInput): ProtocolIR {
  const { schema, overlay, file } = input;
  const defs = schema.definitions;
  const at = (pointer: string) => ({ file, pointer: schema.sourcePointer(pointer) });

  // Types, named from their definition keys only.
  const byTsName = new Map<string, string>();
  const types: TypeDecl[] = [];
  for (const [name, def] of Object.entries(defs)) {
    const pointer = joinPointer("", "definitions", name);
    const tsName = typeNameOf(name);
    const clash = byTsName.get(tsName.toLowerCase());
    if (clash !== undefined) {
      throw new CodegenError(
        `definition "${name}" collides with definition "${clash}" (${schema.sourcePointer(joinPointer("", "definitions", clash))}): ` +
          `both would be the type "${tsName}"; rename one of them`,
        at(pointer),
      );
    }
    if (!IDENTIFIER.test(name) || tsName !== name) {
      throw new CodegenError(
        `definition name "${name}" is not a TypeScript type name (it would become "${tsName}"); rename the definition`,
        at(pointer),
      );
    }
    byTsName.set(tsName.toLowerCase(), name);
    types.push({ name, kind: kindOf(def), description: typeof def.description === "string" ? def.description : undefined, schema: def });
  }

  const enums: EnumInfo[] = types
    .filter((t) => t.kind === "enum")
    .map((t) => ({ name: t.name, values: (t.schema.enum as string[]).slice() }));
  for (const e of enums) {
    const generated = `${e.name}Values`;
    const clash = byTsName.get(generated.toLowerCase());
    if (clash !== undefined) {
      throw new CodegenError(
        `definition "${clash}" collides with "${generated}", the value list generated for enumeration "${e.name}"; rename one of them`,
        at(joinPointer("", "definitions", clash)),
      );
    }
  }

  const unions = findUnions(defs);
  const methods = findMethods(defs, unions, overlay, at);
  if (!defs.AgentCard && methods.length === 0) {
    throw new CodegenError(
      `not an A2A JSON Schema: none of its ${types.length} definitions is "AgentCard"`,
      { file, pointer: schema.dialect === "$defs" ? "/$defs" : "/definitions" },
    );
  }
  if (methods.length === 0) {
    throw new CodegenError(
      'not an A2A JSON Schema: no definition is a JSON-RPC request (an object whose "method" is a constant)',
      { file, pointer: schema.dialect === "$defs" ? "/$defs" : "/definitions" },
    );
  }

  const errors: ErrorInfo[] = [];
  for (const t of types) {
    const props = t.schema.properties;
    if (t.kind !== "object" || !isObject(props) || !isObject(props.code) || typeof props.code.const !== "number") continue;
    const message = isObject(props.message) ? (props.message.const ?? props.message.default) : undefined;
    errors.push({
      name: t.name,
      code: props.code.const,
      defaultMessage: typeof message === "string" ? message : undefined,
      description: t.description,
    });
  }
  errors.sort((a, b) => b.code - a.code || (a.name < b.name ? -1 : 1));

  refuseAliasCycles(defs, at);
  const roles: { [R in MethodRole]?: string } = {};
  for (const [role, method] of Object.entries(overlay.roles)) {
    if ((METHOD_ROLES as readonly string[]).includes(role) && methods.some((m) => m.method === method)) roles[role as MethodRole] = method;
  }
  const core = findCoreTypes(defs, methods, roles, (pointer) => ({ file, pointer: pointer === "/definitions" && schema.dialect === "$defs" ? "/$defs" : pointer }));
  const part = unions.find((u) => u.definition === core.part);
  const discriminatorField = part?.dispatch.kind === "tag" ? part.dispatch.property : undefined;
  return {
    specVersion: input.specVersion,
    versionBasis: input.versionBasis,
    source: { file, fileName: basename(file), sha256: input.sha256 },
    facts: {
      wellKnownAgentCardPath: overlay.wellKnownAgentCardPath,
      discriminatorField,
      agentCardType: core.agentCard,
    },
    types,
    unions,
    namedUnions: nameUnionMembers(defs, unions, at),
    methods,
    requestUnion: requestUnionOf(unions, methods),
    responseUnion: responseUnionOf(unions, methods),
    errors,
    enums,
    profile: buildProfile(defs, methods, errors, overlay, input.specVersion, discriminatorField, unions, core),
    core,
    protoJsonDefaults: overlay.protoJson === true ? protoJsonDefaults(defs, new Set(errors.map((e) => e.name))) : {},
    inputFields: overlay.protoJson === true ? inputFieldsOf(defs, methods.map((m) => m.paramsType).filter((t): t is string => typeof t === "string")) : undefined,
    // A derived schema may lack a definition or property a constraint names: it applies where both exist.
    specConstraints: (overlay.constraints ?? []).filter((c) => isObject(defs[c.definition]?.properties) && c.property in (defs[c.definition]?.properties as JsonObject)),
  };
}

function kindOf(def: JsonObject): TypeKind {
  if (Array.isArray(def.anyOf) || Array.isArray(def.oneOf)) return "union";
  if (Array.isArray(def.enum) && def.enum.every((v) => typeof v === "string") && def.const === undefined) return "enum";
  if (def.type === "object" || isObject(def.properties)) return "object";
  return "alias";
}

function findMethods(
  defs: Record<string, JsonObject>,
  unions: UnionInfo[],
  overlay: Overlay,
  at: (pointer: string) => { file: string; pointer: string },
): MethodInfo[] {
  const requests = new Map<string, string>(); // definition -> method
  const seen = new Map<string, string>(); // method -> definition
  for (const [name, def] of Object.entries(defs)) {
    const props = def.properties;
    if (!isObject(props) || !isObject(props.method) || typeof props.method.const !== "string" || !("jsonrpc" in props)) continue;
    const method = props.method.const;
    const other = seen.get(method);
    if (other !== undefined) {
      throw new CodegenError(`method "${method}" is defined twice, by "${other}" and "${name}"`, at(joinPointer("", "definitions", name, "properties", "method")));
    }
    seen.set(method, name);
    requests.set(name, method);
  }
  const union = unions
    .filter((u) => u.definition !== undefined && u.dispatch.kind === "tag" && u.dispatch.property === "method")
    .sort((a, b) => b.members.length - a.members.length)[0];
  const listed = union?.members.map((m) => m.ref).filter((r): r is string => r !== undefined && requests.has(r)) ?? [];
  const order = [...listed, ...[...requests.keys()].filter((r) => !listed.includes(r)).sort()];

  for (const [method, response] of Object.entries(overlay.responses)) {
    if (seen.has(method) && !defs[response]) {
      throw new CodegenError(`overlay names response "${response}" for "${method}", but the schema has no such definition`, {
        file: `a2a-${overlay.version}.overlay.json`,
        pointer: joinPointer("", "responses", method),
      });
    }
  }

  return order.map((requestType) => {
    const def = defs[requestType] as JsonObject;
    const props = def.properties as JsonObject;
    const method = requests.get(requestType) as string;
    const required = Array.isArray(def.required) ? def.required : [];
    const params = props.params;
    const stem = requestType.replace(/Request$/, "");
    const named = overlay.responses[method] ?? `${stem}Response`;
    return {
      method,
      requestType,
      paramsType: isObject(params) ? refName(params.$ref) : undefined,
      hasParams: params !== undefined,
      paramsRequired: required.includes("params"),
      responseType: defs[named] ? named : undefined,
      streaming: overlay.streamingMethods.includes(method),
      inRequestUnion: listed.includes(requestType),
      description: typeof def.description === "string" ? def.description : undefined,
    };
  });
}

function requestUnionOf(unions: UnionInfo[], methods: MethodInfo[]): string | undefined {
  const requestTypes = new Set(methods.map((m) => m.requestType));
  return unions
    .filter((u) => u.definition !== undefined && u.members.every((m) => m.ref !== undefined && requestTypes.has(m.ref)))
    .sort((a, b) => b.members.length - a.members.length)[0]?.definition;
}

function responseUnionOf(unions: UnionInfo[], methods: MethodInfo[]): string | undefined {
  // The definition-level union that has the most members and covers more than one method's responses.
  const responseMembers = new Set<string>();
  for (const u of unions) {
    if (u.definition && methods.some((m) => m.responseType === u.definition)) {
      for (const member of u.members) if (member.ref) responseMembers.add(member.ref);
    }
  }
  return unions
    .filter(
      (u) =>
        u.definition !== undefined &&
        !methods.some((m) => m.responseType === u.definition) &&
        u.members.length > 2 &&
        u.members.every((m) => m.ref !== undefined && responseMembers.has(m.ref)),
    )
    .sort((a, b) => b.members.length - a.members.length)[0]?.definition;
}
