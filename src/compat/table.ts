import type { Condition, DualCardRule, Transform } from "../runtime/compat/converter.js";

/**
 * What the version mapping cannot derive from the two schemas and their diff: the few facts that only a
 * reader of both specifications knows. Everything else in the mapping (which methods correspond, which
 * definitions correspond, which fields carry over, which values each enumeration pairs, how results are
 * wrapped, what each direction loses) is derived by `deriveMapping` from the IRs (src/compat/derive.ts).
 *
 * Each entry names the definitions of both versions it applies to; `deriveMapping` fails on an entry
 * that names a definition or a field the schemas do not have, so the table cannot silently go stale.
 */
export interface CompatTable {
  /** The older version the table maps to the newer one. */
  readonly compat: string;
  readonly primary: string;
  /** The params definition of a role where the compat method's params are not one plain reference. */
  readonly compatParams: { readonly [role: string]: string };
  /** Fields that changed name (or shape) between the two definitions of a pair. */
  readonly renames: readonly FieldRename[];
  /** A compat object whose field holds what the primary object carries at its top level. */
  readonly nests: ReadonlyArray<{ readonly compat: string; readonly primary: string; readonly field: string; readonly why: string }>;
  /** Enumeration values the spelling rule (`TASK_STATE_INPUT_REQUIRED` ↔ `input-required`) does not pair. */
  readonly enumValues: ReadonlyArray<{ readonly compat: string; readonly primary: string; readonly values: ReadonlyArray<readonly [string, string]> }>;
  /** Unions whose members pair by a rule the schemas do not state (a `kind` tag ↔ which field is present). */
  readonly unions: readonly UnionEntry[];
  /** A compat field the primary version does not carry, computed from a field it does. */
  readonly computed: ReadonlyArray<{
    readonly compat: string;
    readonly field: string;
    /** Dotted path of the primary object the value is computed from. */
    readonly from: string;
    /** True when that value is one of these (canonical spellings, mapped to the primary's). */
    readonly whenIn: readonly string[];
    readonly why: string;
  }>;
  /** Error `data`: kept as it is by the compat version, a list of google.rpc details in the primary. */
  readonly errorData: { readonly definition: string; readonly field: string; readonly detailType: string; readonly why: string } | undefined;
  /**
   * The card served to both versions' clients (docs/compat.md): where each top-level field a compat client
   * needs comes from. `deriveMapping` checks it covers every field the compat card requires that the
   * primary card lacks.
   */
  readonly card: DualCardRule | undefined;
  /** Definitions converted by a function the caller supplies (the agent card). */
  readonly hooks: ReadonlyArray<{ readonly compat: string; readonly primary: string; readonly hook: string; readonly why: string }>;
}

export interface FieldRename {
  /** The pair of definitions (compat, primary). */
  readonly compat: string;
  readonly primary: string;
  /** The compat field and the primary field it becomes. */
  readonly field: string;
  readonly to: string;
  readonly toPrimary?: Transform;
  readonly toCompat?: Transform;
  /** When the compat field is absent, the primary field takes this compat field's value instead. */
  readonly toPrimaryOrFrom?: string;
  /** Why (a section of a specification or an SDK's behaviour). */
  readonly why: string;
}

export interface UnionEntry {
  readonly compat: string;
  readonly primary: string;
  readonly members: ReadonlyArray<{
    /** A label for reports: `text`, `file (bytes)`. */
    readonly label: string;
    /** The compat member definition, and what tells it apart. */
    readonly compatMember: string;
    readonly compatWhen: readonly Condition[];
    /** Definitions of nested compat objects whose fields the renames read (`file` → FileWithBytes). */
    readonly compatNested: { readonly [field: string]: string };
    /** The primary member, by the field only it has (its presence marker in the IR). */
    readonly primaryMarker: string;
    /** Compat path → primary path, for the fields whose names differ. */
    readonly renames: { readonly [compatPath: string]: string };
    readonly toCompat?: { readonly [primaryPath: string]: Transform };
  }>;
  readonly why: string;
}

/** A2A 0.3.0 ↔ 1.0.1. */
export const TABLE_0_3_TO_1_0: CompatTable = {
  compat: "0.3.0",
  primary: "1.0.1",
  compatParams: {
    // 0.3 `tasks/pushNotificationConfig/get` takes TaskIdParams | GetTaskPushNotificationConfigParams; the second has every field of the first.
    pushGet: "GetTaskPushNotificationConfigParams",
  },
  renames: [
    {
      compat: "MessageSendConfiguration",
      primary: "SendMessageConfiguration",
      field: "blocking",
      to: "returnImmediately",
      toPrimary: { op: "not" },
      toCompat: { op: "not" },
      why: "1.0.1 §3.2.2: returnImmediately replaces blocking with the opposite meaning",
    },
    {
      compat: "MessageSendConfiguration",
      primary: "SendMessageConfiguration",
      field: "pushNotificationConfig",
      to: "taskPushNotificationConfig",
      why: "1.0.1 names the push config of a send by its TaskPushNotificationConfig type",
    },
    {
      compat: "PushNotificationAuthenticationInfo",
      primary: "AuthenticationInfo",
      field: "schemes",
      to: "scheme",
      toPrimary: { op: "first" },
      toCompat: { op: "list" },
      why: "1.0.1 has one HTTP auth scheme where 0.3.0 lists several",
    },
    ...["GetTaskPushNotificationConfig", "DeleteTaskPushNotificationConfig"].flatMap((name) => [
      {
        compat: `${name}Params`,
        primary: `${name}Request`,
        field: "id",
        to: "taskId",
        why: "1.0.1 names the task `taskId` and the config `id`",
      },
      {
        compat: `${name}Params`,
        primary: `${name}Request`,
        field: "pushNotificationConfigId",
        to: "id",
        toPrimaryOrFrom: "id",
        why: "1.0.1 requires the config id; a 0.3 client leaves it out for the task's default config, whose id is the task id (@a2a-js/sdk 0.3 DefaultRequestHandler)",
      },
    ]),
    {
      compat: "ListTaskPushNotificationConfigParams",
      primary: "ListTaskPushNotificationConfigsRequest",
      field: "id",
      to: "taskId",
      why: "1.0.1 names the task `taskId`",
    },
  ],
  nests: [
    {
      compat: "TaskPushNotificationConfig",
      primary: "TaskPushNotificationConfig",
      field: "pushNotificationConfig",
      why: "1.0.1 flattens the config into TaskPushNotificationConfig",
    },
  ],
  enumValues: [{ compat: "TaskState", primary: "TaskState", values: [["unknown", "TASK_STATE_UNSPECIFIED"]] }],
  unions: [
    {
      compat: "Part",
      primary: "Part",
      why: "0.3.0 tags parts with `kind` (a file part nests bytes or uri in `file`); 1.0.1 tells them apart by which of text/raw/url/data is present (1.0.1 §4.1.6)",
      members: [
        { label: "text", compatMember: "TextPart", compatWhen: [{ path: "kind", equals: "text" }], compatNested: {}, primaryMarker: "text", renames: {} },
        {
          label: "file bytes",
          compatMember: "FilePart",
          compatWhen: [{ path: "kind", equals: "file" }, { path: "file.bytes", present: true }],
          compatNested: { file: "FileWithBytes" },
          primaryMarker: "raw",
          renames: { "file.bytes": "raw", "file.mimeType": "mediaType", "file.name": "filename" },
        },
        {
          label: "file uri",
          compatMember: "FilePart",
          compatWhen: [{ path: "kind", equals: "file" }, { path: "file.uri", present: true }],
          compatNested: { file: "FileWithUri" },
          primaryMarker: "url",
          renames: { "file.uri": "url", "file.mimeType": "mediaType", "file.name": "filename" },
        },
        {
          label: "data",
          compatMember: "DataPart",
          compatWhen: [{ path: "kind", equals: "data" }],
          compatNested: {},
          primaryMarker: "data",
          renames: {},
          // 0.3.0's DataPart.data is an object; 1.0.1's is any JSON value.
          toCompat: { data: { op: "object", property: "value" } },
        },
      ],
    },
  ],
  computed: [
    {
      compat: "TaskStatusUpdateEvent",
      field: "final",
      from: "status.state",
      whenIn: ["completed", "canceled", "failed", "rejected", "input-required", "auth-required"],
      why: "1.0.1 drops `final`; our streams end after a terminal or interrupted state, where a blocking send returns (1.0.1 §3.1.1)",
    },
  ],
  errorData: {
    definition: "JSONRPCError",
    field: "data",
    detailType: "type.googleapis.com/google.protobuf.Value",
    why: "1.0.1 §3.3.2 and §9.5: error data is a list of google.rpc details; any 0.3 value travels as one google.protobuf.Value detail",
  },
  card: {
    // As the official SDKs' own dual cards do (a2a-python tests/server/request_handlers/test_response_helpers.py,
    // the a2a-java ITK agent in test/fixtures/corpus/cards): the 0.3 interface listed with protocolVersion "0.3".
    interfaceVersion: "0.3",
    binding: "JSONRPC",
    fields: [
      { field: "url", from: "interface.url" },
      { field: "preferredTransport", from: "interface.protocolBinding" },
      { field: "protocolVersion", value: "0.3.0" },
      { field: "supportsAuthenticatedExtendedCard", from: "capabilities.extendedAgentCard" },
      // 0.3's security requirements, from the 0.3 form of the card (a2a-codegen's card converter).
      { field: "security", from: "compat.security" },
    ],
    // Each security scheme carries both shapes (`{ type: "http", scheme, httpAuthSecurityScheme: { scheme } }`):
    // valid in both schemas, read by both SDKs (docs/compat.md).
    merge: ["securitySchemes"],
    // specification-0.3.0.md §5.6: every transport the agent serves to 0.3 clients, the main one included.
    interfaces: { field: "additionalInterfaces", binding: "transport" },
  },
  hooks: [{ compat: "AgentCard", primary: "AgentCard", hook: "card", why: "the agent card has its own converter (src/card/convert.ts)" }],
};
