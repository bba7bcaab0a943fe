import type { MethodRole, ObjectShape, ProtocolProfile } from "../runtime/profile.js";
import type { JsonObject } from "../schema/json.js";
import type { ProtoJsonDefaults } from "../runtime/wire/proto-defaults.js";
import type { InputFields } from "../runtime/wire/proto-json-input.js";

export type { MethodRole, ObjectShape, ProtocolProfile };

/**
 * The Protocol IR: everything the emitters need, derived once from the normalized schema (plus the
 * version's overlay for the few facts a schema does not state). Emitters read this and nothing else.
 * It holds no version-specific code paths: a new schema with new methods or union members flows
 * through the same analysis.
 */
export interface ProtocolIR {
  /** The spec version, e.g. "0.3.0". */
  specVersion: string;
  /** How the version was determined: a bundled file, the overlay, or the closest bundled schema. */
  versionBasis: "bundled" | "overlay" | "closest-bundled";
  source: { file: string; fileName: string; sha256: string };
  facts: VersionFacts;
  /** Every definition, by name (sorted). */
  types: TypeDecl[];
  /** Every anyOf/oneOf in the schema that the emitters treat as a union, definition-level or inline. */
  unions: UnionInfo[];
  /** The named members (and shared base) of the unions told apart by presence (1.0's oneofs: `TextPart`). */
  namedUnions: NamedUnion[];
  /** Every JSON-RPC method, the request union's members first, in its order. */
  methods: MethodInfo[];
  /** The definition that unions every request (A2ARequest), when the schema has one. */
  requestUnion: string | undefined;
  /** The definition that unions every response (JSONRPCResponse in 0.2+), when the schema has one. */
  responseUnion: string | undefined;
  /** Error definitions with a constant code, sorted by code. */
  errors: ErrorInfo[];
  /** Definitions that are enumerations of strings. */
  enums: EnumInfo[];
  /** What the version-independent client and server runtime needs to know of this version. */
  profile: ProtocolProfile;
  /** The definitions the generated client and server are written against, found by their role. */
  core: CoreTypes;
  /** What a reader puts back where a ProtoJSON writer left a field out at its default (empty unless the version is ProtoJSON). */
  protoJsonDefaults: ProtoJsonDefaults;
  /** ProtoJSON versions (1.0): the fields each params definition reads, for input under proto names and without unknown fields. */
  inputFields: InputFields | undefined;
  /** The constraints of the specification text the validators add to the schema (overlay `constraints`), each where the schema has its property. */
  specConstraints: Array<{ definition: string; property: string; schema: JsonObject; source: string; appliesTo?: "requests" }>;
}

/** The protocol's core objects, by role → the definition that plays it (`message` → "Message"). */
export interface CoreTypes {
  agentCard: string;
  message: string;
  part: string;
  task: string;
  artifact: string;
}

/** The roles a method can play; the runtime works by role, the schema names the method. */
export const METHOD_ROLES: readonly MethodRole[] = [
  "send",
  "list",
  "stream",
  "get",
  "cancel",
  "resubscribe",
  "pushSet",
  "pushGet",
  "pushList",
  "pushDelete",
  "extendedCard",
];

export interface VersionFacts {
  /** Where an agent serves its card, e.g. "/.well-known/agent-card.json". */
  wellKnownAgentCardPath: string;
  /** The property that tells Part members apart: "type" in 0.1.0, "kind" later. */
  discriminatorField: string | undefined;
  /** The agent card definition. */
  agentCardType: string;
}

export type TypeKind = "object" | "union" | "enum" | "alias";

export interface TypeDecl {
  /** The definition key; also the TypeScript name (a key that is not a valid name is an input error). */
  name: string;
  kind: TypeKind;
  description: string | undefined;
  /** The normalized schema of the definition. */
  schema: JsonObject;
}

export interface UnionMember {
  /** The definition the member refers to, or undefined for an inline member. */
  ref: string | undefined;
  /** The member's index in the anyOf/oneOf. */
  index: number;
}

export type UnionDispatch =
  /** Members share a required property with a distinct constant each (`kind`, `type`, `method`, `code`). */
  | { kind: "tag"; property: string; tags: Array<{ value: string | number; member: UnionMember }> }
  /** Each member requires a property no other member declares (`result` vs `error`, `bytes` vs `uri`). */
  | { kind: "presence"; markers: Array<{ property: string; member: UnionMember }> }
  /** Nothing tells the members apart before validating them. */
  | { kind: "none" };

export interface UnionInfo {
  /** JSON pointer of the union schema in the normalized schema (`/definitions/Part`, `/definitions/X/properties/result`). */
  pointer: string;
  /** The definition it is, when it is a whole definition. */
  definition: string | undefined;
  keyword: "anyOf" | "oneOf";
  members: UnionMember[];
  dispatch: UnionDispatch;
}

/** A union told apart by presence whose inline members get names (see ir/member-names.ts). */
export interface NamedUnion {
  /** The union's definition, e.g. "Part". */
  union: string;
  /** The interface of the properties every member declares alike ("PartBase"), when there are any. */
  base: string | undefined;
  /** Those properties, in the first member's order. */
  common: string[];
  /** One per member, in the union's order: its name, the property that marks it, its index in the anyOf/oneOf. */
  members: Array<{ name: string; property: string; index: number }>;
}

export interface MethodInfo {
  /** The JSON-RPC method name, e.g. "message/send". */
  method: string;
  /** The request definition, e.g. "SendMessageRequest". */
  requestType: string;
  /** The params definition when params is a plain reference, else undefined. */
  paramsType: string | undefined;
  hasParams: boolean;
  paramsRequired: boolean;
  /** The response definition (union of success and error, or one object in 0.1.0); undefined when none is known. */
  responseType: string | undefined;
  /** Whether the method answers with a stream of responses (SSE). */
  streaming: boolean;
  /** Whether the schema's request union lists it (0.1.0's `tasks/sendSubscribe` is defined but not listed). */
  inRequestUnion: boolean;
  description: string | undefined;
}

export interface ErrorInfo {
  /** The definition, e.g. "TaskNotFoundError". */
  name: string;
  code: number;
  /** The message the schema gives as constant or default. */
  defaultMessage: string | undefined;
  description: string | undefined;
}

export interface EnumInfo {
  name: string;
  values: string[];
}
