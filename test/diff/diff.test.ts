import { beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { diffProtocols, pointerLabel, type SpecDiff } from "../../src/diff/diff.js";
import { tokens } from "../../src/diff/pairing.js";
import { bundledIR, loadProtocol, protocolIR } from "../../src/load/protocol.js";
import { renderMarkdown, renderText, summaryLine } from "../../src/diff/render.js";
import { schemaText } from "../../src/diff/schema-text.js";
import { SPEC_CHANGES_PATH, specChangesMarkdown, writeSpecChanges } from "../../src/diff/spec-changes.js";
import type { ProtocolIR } from "../../src/ir/types.js";
import { addAudioPart, addListTasksMethod } from "../support/derived-schemas.js";
import type { Json, JsonObject } from "../../src/schema/json.js";
import { readSchema, ROOT, tempDir } from "../support/project.js";

const diffOf = (a: string, b: string): SpecDiff => diffProtocols(bundledIR(a), bundledIR(b));

/** A diff without what names the input files (for comparing diffs of files with the same content). */
function changesOnly(diff: SpecDiff): Omit<SpecDiff, "from" | "to"> {
  const { from: _from, to: _to, ...rest } = diff;
  return rest;
}

describe("diffProtocols on the bundled versions", () => {
  it("0.1.0 → 0.2.0: method renames by role, with what else changed", () => {
    const diff = diffOf("0.1.0", "0.2.0");
    expect(diff.methods.added).toEqual([]);
    expect(diff.methods.removed).toEqual([]);
    expect(diff.methods.renamed).toEqual([
      { from: "tasks/pushNotification/get", to: "tasks/pushNotificationConfig/get", evidence: "same role: pushGet", changes: [] },
      { from: "tasks/pushNotification/set", to: "tasks/pushNotificationConfig/set", evidence: "same role: pushSet", changes: [] },
      { from: "tasks/send", to: "message/send", evidence: "same role: send", changes: [] },
      {
        from: "tasks/sendSubscribe",
        to: "message/stream",
        evidence: "same role: stream",
        // 0.1.0 defines tasks/sendSubscribe but does not list it in A2ARequest.
        changes: [{ field: "inRequestUnion", from: false, to: true }],
      },
    ]);
    expect(diff.methods.changed).toEqual([
      { method: "tasks/resubscribe", changes: [{ field: "params", from: "TaskQueryParams", to: "TaskIdParams" }] },
    ]);
  });

  it("0.1.0 → 0.2.0: type renames of the methods' request, params and response types, and one look-alike", () => {
    const diff = diffOf("0.1.0", "0.2.0");
    expect(diff.types.renamed.map((r) => [r.from, r.to, r.evidence])).toEqual([
      ["AuthenticationInfo", "PushNotificationAuthenticationInfo", "similar properties: 2 of 2 shared (credentials, schemes)"],
      ["GetTaskPushNotificationRequest", "GetTaskPushNotificationConfigRequest", "same role: request of pushGet"],
      ["GetTaskPushNotificationResponse", "GetTaskPushNotificationConfigResponse", "same role: response of pushGet"],
      ["SendTaskRequest", "SendMessageRequest", "same role: request of send"],
      ["SendTaskResponse", "SendMessageResponse", "same role: response of send"],
      ["SendTaskStreamingRequest", "SendStreamingMessageRequest", "same role: request of stream"],
      ["SendTaskStreamingResponse", "SendStreamingMessageResponse", "same role: response of stream"],
      ["SetTaskPushNotificationRequest", "SetTaskPushNotificationConfigRequest", "same role: request of pushSet"],
      ["SetTaskPushNotificationResponse", "SetTaskPushNotificationConfigResponse", "same role: response of pushSet"],
      ["TaskSendParams", "MessageSendParams", "same role: params of send"],
    ]);
    expect(diff.types.renamed.find((r) => r.from === "TaskSendParams")?.changes).toEqual([
      { change: "added", field: "configuration", type: "MessageSendConfiguration", required: false },
      { change: "removed", field: "historyLength", type: "integer", required: false },
      { change: "removed", field: "id", type: "string", required: true },
      { change: "removed", field: "pushNotification", type: "PushNotificationConfig", required: false },
      { change: "removed", field: "sessionId", type: "string", required: false },
    ]);
    expect(diff.types.renamed.find((r) => r.from === "SendTaskRequest")?.changes).toEqual([
      { change: "required", field: "jsonrpc", from: false, to: true },
      { change: "const", field: "method", from: "tasks/send", to: "message/send" },
    ]);
    // Ambiguous or unmatched look-alikes stay removed (FileContent resembles both FileWithBytes and FileWithUri).
    expect(diff.types.removed.map((t) => t.name)).toEqual(["AgentAuthentication", "FileContent"]);
    expect(diff.types.added.map((t) => t.name)).toContain("FileWithBytes");
  });

  it("0.1.0 → 0.2.0: the Part discriminator goes from `type` to `kind`", () => {
    const diff = diffOf("0.1.0", "0.2.0");
    expect(diff.unions.find((u) => u.union === "Part")).toEqual({
      union: "Part",
      pointer: "/definitions/Part",
      membersAdded: [],
      membersRemoved: [],
      dispatch: { from: { kind: "tag", property: "type" }, to: { kind: "tag", property: "kind" } },
    });
    expect(diff.facts).toEqual([
      { fact: "discriminatorField", from: "type", to: "kind" },
      { fact: "jsonrpcRequired", from: false, to: true },
    ]);
    expect(diff.types.changed.find((t) => t.name === "TextPart")?.changes).toEqual([
      { change: "added", field: "kind", type: '"text"', required: true },
      { change: "removed", field: "type", type: '"text"', required: true },
    ]);
    expect(diff.types.changed.find((t) => t.name === "FilePart")?.changes).toContainEqual({
      change: "type",
      field: "file",
      from: "FileContent",
      to: "FileWithBytes | FileWithUri",
    });
    expect(diff.types.changed.find((t) => t.name === "TaskState")?.changes).toEqual([
      { change: "enum", field: null, added: ["auth-required", "rejected"], removed: [] },
    ]);
    expect(diff.errors).toEqual({
      added: [
        { code: -32005, name: "ContentTypeNotSupportedError", message: "Incompatible content types" },
        { code: -32006, name: "InvalidAgentResponseError", message: "Invalid agent response" },
      ],
      removed: [],
      changed: [],
    });
    // Unions are compared modulo renames: A2ARequest gains only the streaming request 0.1.0 did not list.
    expect(diff.unions.find((u) => u.union === "A2ARequest")).toMatchObject({
      membersAdded: ["SendStreamingMessageRequest"],
      membersRemoved: [],
      dispatch: null,
    });
  });

  it("0.2.4 → 0.2.5: tasks/pushNotificationConfig/list and /delete are added, with their types", () => {
    const diff = diffOf("0.2.4", "0.2.5");
    expect(diff.methods.added).toEqual([
      {
        method: "tasks/pushNotificationConfig/delete",
        role: "pushDelete",
        requestType: "DeleteTaskPushNotificationConfigRequest",
        params: "DeleteTaskPushNotificationConfigParams",
        responseType: "DeleteTaskPushNotificationConfigResponse",
        streaming: false,
      },
      {
        method: "tasks/pushNotificationConfig/list",
        role: "pushList",
        requestType: "ListTaskPushNotificationConfigRequest",
        params: "ListTaskPushNotificationConfigParams",
        responseType: "ListTaskPushNotificationConfigResponse",
        streaming: false,
      },
    ]);
    expect(diff.methods.removed).toEqual([]);
    expect(diff.methods.renamed).toEqual([]);
    expect(diff.methods.changed).toEqual([
      {
        method: "tasks/pushNotificationConfig/get",
        changes: [{ field: "params", from: "TaskIdParams", to: "GetTaskPushNotificationConfigParams | TaskIdParams" }],
      },
    ]);
    expect(diff.types.added).toEqual([
      { name: "DeleteTaskPushNotificationConfigParams", kind: "object", shape: "{ id, metadata?, pushNotificationConfigId }" },
      { name: "DeleteTaskPushNotificationConfigRequest", kind: "object", shape: "{ id, jsonrpc, method, params }" },
      { name: "DeleteTaskPushNotificationConfigResponse", kind: "union", shape: "DeleteTaskPushNotificationConfigSuccessResponse | JSONRPCErrorResponse" },
      { name: "DeleteTaskPushNotificationConfigSuccessResponse", kind: "object", shape: "{ id, jsonrpc, result }" },
      { name: "GetTaskPushNotificationConfigParams", kind: "object", shape: "{ id, metadata?, pushNotificationConfigId? }" },
      { name: "ListTaskPushNotificationConfigParams", kind: "object", shape: "{ id, metadata? }" },
      { name: "ListTaskPushNotificationConfigRequest", kind: "object", shape: "{ id, jsonrpc, method, params }" },
      { name: "ListTaskPushNotificationConfigResponse", kind: "union", shape: "JSONRPCErrorResponse | ListTaskPushNotificationConfigSuccessResponse" },
      { name: "ListTaskPushNotificationConfigSuccessResponse", kind: "object", shape: "{ id, jsonrpc, result }" },
    ]);
    expect(diff.types.removed).toEqual([]);
    expect(diff.types.changed).toEqual([
      { name: "AgentCard", changes: [{ change: "added", field: "protocolVersion", type: "string", required: true }] },
      {
        name: "GetTaskPushNotificationConfigRequest",
        changes: [{ change: "type", field: "params", from: "TaskIdParams", to: "GetTaskPushNotificationConfigParams | TaskIdParams" }],
      },
    ]);
    expect(diff.unions.map((u) => [u.union, u.membersAdded, u.membersRemoved])).toEqual([
      ["A2ARequest", ["DeleteTaskPushNotificationConfigRequest", "ListTaskPushNotificationConfigRequest"], []],
      ["JSONRPCResponse", ["DeleteTaskPushNotificationConfigSuccessResponse", "ListTaskPushNotificationConfigSuccessResponse"], []],
    ]);
    expect(diff.errors).toEqual({ added: [], removed: [], changed: [] });
    expect(diff.facts).toEqual([]);
  });

  it("0.2.6 → 0.3.0: the extended card method, its error, new types and fields, the new well-known path", () => {
    const diff = diffOf("0.2.6", "0.3.0");
    expect(diff.facts).toEqual([
      { fact: "wellKnownAgentCardPath", from: "/.well-known/agent.json", to: "/.well-known/agent-card.json" },
    ]);
    expect(diff.methods).toEqual({
      added: [
        {
          method: "agent/getAuthenticatedExtendedCard",
          role: "extendedCard",
          requestType: "GetAuthenticatedExtendedCardRequest",
          params: null,
          responseType: "GetAuthenticatedExtendedCardResponse",
          streaming: false,
        },
      ],
      removed: [],
      renamed: [],
      changed: [],
    });
    expect(diff.types.added.map((t) => [t.name, t.kind])).toEqual([
      ["AgentCardSignature", "object"],
      ["AuthenticatedExtendedCardNotConfiguredError", "object"],
      ["GetAuthenticatedExtendedCardRequest", "object"],
      ["GetAuthenticatedExtendedCardResponse", "union"],
      ["GetAuthenticatedExtendedCardSuccessResponse", "object"],
      ["MutualTLSSecurityScheme", "object"],
      ["TransportProtocol", "enum"],
    ]);
    expect(diff.types.added.find((t) => t.name === "TransportProtocol")?.shape).toBe('"JSONRPC" | "GRPC" | "HTTP+JSON"');
    expect(diff.types.removed).toEqual([]);
    expect(diff.types.renamed).toEqual([]);
    expect(diff.types.changed).toEqual([
      {
        name: "AgentCard",
        changes: [
          { change: "default", field: "preferredTransport", from: null, to: '"JSONRPC"' },
          { change: "default", field: "protocolVersion", from: '"0.2.5"', to: '"0.3.0"' },
          { change: "added", field: "signatures", type: "AgentCardSignature[]", required: false },
        ],
      },
      { name: "AgentSkill", changes: [{ change: "added", field: "security", type: "Record<string, string[]>[]", required: false }] },
      { name: "OAuth2SecurityScheme", changes: [{ change: "added", field: "oauth2MetadataUrl", type: "string", required: false }] },
    ]);
    // TaskState has the same values in both.
    expect(bundledIR("0.3.0").enums.find((e) => e.name === "TaskState")?.values).toEqual(bundledIR("0.2.6").enums.find((e) => e.name === "TaskState")?.values);
    expect(diff.unions.map((u) => [u.union, u.membersAdded, u.membersRemoved, u.dispatch])).toEqual([
      ["A2AError", ["AuthenticatedExtendedCardNotConfiguredError"], [], null],
      ["A2ARequest", ["GetAuthenticatedExtendedCardRequest"], [], null],
      ["JSONRPCErrorResponse.error", ["AuthenticatedExtendedCardNotConfiguredError"], [], null],
      ["JSONRPCResponse", ["GetAuthenticatedExtendedCardSuccessResponse"], [], null],
      ["SecurityScheme", ["MutualTLSSecurityScheme"], [], null],
    ]);
    expect(diff.errors).toEqual({
      added: [{ code: -32007, name: "AuthenticatedExtendedCardNotConfiguredError", message: "Authenticated Extended Card is not configured" }],
      removed: [],
      changed: [],
    });
  });

  it("0.2.1 → 0.2.2: JSONRPCResult → JSONRPCSuccessResponse is a look-alike rename", () => {
    const diff = diffOf("0.2.1", "0.2.2");
    expect(diff.types.renamed).toEqual([
      {
        from: "JSONRPCResult",
        to: "JSONRPCSuccessResponse",
        evidence: "similar properties: 3 of 3 shared (id, jsonrpc, result)",
        changes: [
          { change: "required", field: "id", from: false, to: true },
          { change: "type", field: "id", from: "integer | string", to: "integer | null | string" },
        ],
      },
    ]);
    expect(diff.types.added.map((t) => t.name)).toEqual(["AgentExtension"]);
    expect(diff.types.removed).toEqual([]);
  });

  it("identical versions give an empty diff that says so", () => {
    for (const diff of [diffOf("0.2.2", "0.2.3"), diffOf("0.3.0", "0.3.0")]) {
      expect(diff.unchanged).toBe(true);
      const bindings = diff.from.specVersion === "0.3.0" ? ["JSONRPC", "HTTP+JSON", "GRPC"] : ["JSONRPC"];
      expect(changesOnly(diff)).toEqual({
        bindings: { from: bindings, to: bindings, grpcService: null, rpcs: { added: [], removed: [], renamed: [], changed: [] }, routes: { added: [], removed: [], changed: [] } },
        unchanged: true,
        facts: [],
        methods: { added: [], removed: [], renamed: [], changed: [] },
        types: { added: [], removed: [], renamed: [], changed: [] },
        unions: [],
        errors: { added: [], removed: [], changed: [] },
      });
    }
    const text = renderText(diffOf("0.2.2", "0.2.3"));
    expect(text).toBe("A2A 0.2.2 → 0.2.3\nno changes (byte-identical schemas): 7 methods, 76 types, 11 error codes\n");
  });
  // The IR diff reads is generate's: both load through loadProtocol (test/load/protocol.test.ts).
});

/** Schemas derived from 0.3.0, as in test/product/generator.test.ts. */
describe("diffProtocols on schemas derived from 0.3.0", () => {
  const work = tempDir("a2a-codegen-diff-");
  let base: ProtocolIR;
  let withMethod: ProtocolIR;
  let withPart: ProtocolIR;
  let withEdits: ProtocolIR;

  const derive = (name: string, edit: (d: Record<string, JsonObject>) => void): string => {
    const schema = readSchema("0.3.0") as { definitions: Record<string, JsonObject> };
    edit(schema.definitions);
    const file = join(work, name);
    writeFileSync(file, JSON.stringify(schema, null, 2));
    return file;
  };

  beforeAll(async () => {
    base = bundledIR("0.3.0");
    const methodFile = derive("with-method.json", addListTasksMethod);
    const partFile = derive("with-part.json", addAudioPart);
    const editsFile = derive("with-edits.json", (d) => {
      const message = d.Message as JsonObject;
      message.required = (message.required as string[]).filter((r) => r !== "messageId");
      const state = d.TaskState as JsonObject;
      state.enum = (state.enum as string[]).filter((v) => v !== "unknown");
      const where = (d.APIKeySecurityScheme?.properties as JsonObject).in as JsonObject;
      where.enum = (where.enum as string[]).filter((v) => v !== "cookie");
      const status = d.TaskStatus?.properties as JsonObject;
      status.timestamp = { type: "integer" };
    });
    withMethod = loadProtocol({ schema: methodFile }).ir;
    withPart = loadProtocol({ schema: partFile }).ir;
    withEdits = await protocolIR(editsFile);
  });

  it("a new method, tasks/list, with its types and union members", () => {
    const diff = diffProtocols(base, withMethod);
    expect(diff.to.fileName).toBe("with-method.json");
    expect(diff.methods).toEqual({
      added: [
        { method: "tasks/list", role: null, requestType: "ListTasksRequest", params: "ListTasksParams", responseType: "ListTasksResponse", streaming: false },
      ],
      removed: [],
      renamed: [],
      changed: [],
    });
    expect(diff.types.added).toEqual([
      { name: "ListTasksParams", kind: "object", shape: "{ contextId?, pageSize? }" },
      { name: "ListTasksRequest", kind: "object", shape: "{ id, jsonrpc, method, params }" },
      { name: "ListTasksResponse", kind: "union", shape: "JSONRPCErrorResponse | ListTasksSuccessResponse" },
      { name: "ListTasksSuccessResponse", kind: "object", shape: "{ id, jsonrpc, result }" },
    ]);
    expect(diff.types.changed).toEqual([]);
    expect(diff.unions.map((u) => [u.union, u.membersAdded, u.membersRemoved])).toEqual([
      ["A2ARequest", ["ListTasksRequest"], []],
      ["JSONRPCResponse", ["ListTasksSuccessResponse"], []],
    ]);
    expect(summaryLine(diff)).toBe("10 methods → 11 methods: 1 added; 93 types → 97 types: 4 added; 12 error codes, unchanged; 2 unions changed");
    // And the other way round it is a removal.
    expect(diffProtocols(withMethod, base).methods.removed.map((m) => m.method)).toEqual(["tasks/list"]);
  });

  it("a new Part member, AudioPart", () => {
    const diff = diffProtocols(base, withPart);
    expect(diff.types.added).toEqual([{ name: "AudioPart", kind: "object", shape: "{ kind, audio, metadata? }" }]);
    expect(diff.unions).toEqual([
      { union: "Part", pointer: "/definitions/Part", membersAdded: ["AudioPart"], membersRemoved: [], dispatch: null },
    ]);
    expect(diff.methods).toEqual({ added: [], removed: [], renamed: [], changed: [] });
    expect(diff.facts).toEqual([]);
    expect(renderText(diff)).toContain("  ~ Part: + AudioPart\n");
  });

  it("a field made optional, enum values removed, a field type changed", () => {
    const diff = diffProtocols(base, withEdits);
    expect(diff.types.changed).toEqual([
      { name: "APIKeySecurityScheme", changes: [{ change: "enum", field: "in", added: [], removed: ["cookie"] }] },
      { name: "Message", changes: [{ change: "required", field: "messageId", from: true, to: false }] },
      { name: "TaskState", changes: [{ change: "enum", field: null, added: [], removed: ["unknown"] }] },
      { name: "TaskStatus", changes: [{ change: "type", field: "timestamp", from: "string", to: "integer" }] },
    ]);
    const text = renderText(diff);
    expect(text).toContain("  ~ Message\n      ~ messageId: required → optional\n");
    expect(text).toContain('  ~ TaskState\n      ~ (enum): - "unknown"\n');
    expect(text).toContain('      ~ in: - "cookie"\n');
    expect(text).toContain("      ~ timestamp: string → integer\n");
    const markdown = renderMarkdown(diff);
    expect(markdown).toContain("- changed `Message`\n  - `messageId`: required → optional\n");
    expect(markdown).toContain('  - (enum): - `"unknown"`\n');
  });

  it("renames found by name similarity when no role says so", () => {
    // tasks/list renamed to tasks/listAll (no role): paired by shared name tokens.
    const renamedMethod = structuredClone(withMethod);
    for (const m of renamedMethod.methods) if (m.method === "tasks/list") m.method = "tasks/listAll";
    const diff = diffProtocols(withMethod, renamedMethod);
    expect(diff.methods.renamed).toEqual([{ from: "tasks/list", to: "tasks/listAll", evidence: "similar name: shared list, tasks", changes: [] }]);
    expect(diff.methods.added).toEqual([]);
    expect(diff.methods.removed).toEqual([]);
  });
});

describe("binding changes (issue 9)", () => {
  // The bindings come from each version's proto: a2a-0.3.0.proto bundled beside the 0.3.0 JSON Schema (its
  // gRPC and HTTP+JSON bindings, specification-0.3.0.md §3.2), a2a-1.0.1.proto (§5, §10, §11).
  it("0.3.0 → 1.0.1: the gRPC service and rpc names, paired by the operation they are", () => {
    const b = diffOf("0.3.0", "1.0.1").bindings;
    expect(b.from).toEqual(["JSONRPC", "HTTP+JSON", "GRPC"]);
    expect(b.to).toEqual(["JSONRPC", "HTTP+JSON", "GRPC"]);
    expect(b.grpcService).toEqual({ from: "a2a.v1.A2AService", to: "lf.a2a.v1.A2AService" });
    expect(b.rpcs.renamed).toEqual([
      { from: "GetAgentCard", to: "GetExtendedAgentCard", methodFrom: "agent/getAuthenticatedExtendedCard", method: "GetExtendedAgentCard" },
      { from: "ListTaskPushNotificationConfig", to: "ListTaskPushNotificationConfigs", methodFrom: "tasks/pushNotificationConfig/list", method: "ListTaskPushNotificationConfigs" },
      { from: "TaskSubscription", to: "SubscribeToTask", methodFrom: "tasks/resubscribe", method: "SubscribeToTask" },
    ]);
    expect(b.rpcs.added).toEqual([{ rpc: "ListTasks", method: "ListTasks", streaming: false }]);
    expect(b.rpcs.removed).toEqual([]);
    expect(b.rpcs.changed).toContainEqual({ rpc: "SubscribeToTask", field: "requestType", from: "TaskSubscriptionRequest", to: "SubscribeToTaskRequest" });
  });

  it("0.3.0 → 1.0.1: REST paths lose /v1, name resources by id and gain tenant-prefixed forms", () => {
    const b = diffOf("0.3.0", "1.0.1").bindings;
    expect(b.routes.changed.find((r) => r.rpc === "SendMessage")).toEqual({ rpc: "SendMessage", from: ["POST /v1/message:send"], to: ["POST /message:send", "POST /{tenant}/message:send"] });
    expect(b.routes.changed.find((r) => r.rpc === "GetExtendedAgentCard")).toEqual({ rpc: "GetExtendedAgentCard", from: ["GET /v1/card"], to: ["GET /extendedAgentCard", "GET /{tenant}/extendedAgentCard"] });
    expect(b.routes.added).toEqual([{ rpc: "ListTasks", routes: ["GET /tasks", "GET /{tenant}/tasks"] }]);
    const text = renderText(diffOf("0.3.0", "1.0.1"));
    expect(text).toContain("\nBindings\n");
    expect(text).toContain("  ~ gRPC rpc TaskSubscription → SubscribeToTask (the same operation: tasks/resubscribe → SubscribeToTask)");
    expect(text).toContain("      - POST /v1/message:send");
    expect(renderMarkdown(diffOf("0.3.0", "1.0.1"))).toContain("- changed gRPC service: `a2a.v1.A2AService` → `lf.a2a.v1.A2AService`");
  });

  it("0.2.6 → 0.3.0: HTTP+JSON and gRPC are new (0.2.6 has no proto)", () => {
    const diff = diffOf("0.2.6", "0.3.0");
    expect(diff.bindings.from).toEqual(["JSONRPC"]);
    expect(diff.bindings.to).toEqual(["JSONRPC", "HTTP+JSON", "GRPC"]);
    expect(diff.bindings.rpcs.added.map((r) => r.rpc)).toContain("SendMessage");
    expect(summaryLine(diff)).toMatch(/bindings: \d+ changes/);
  });
});

describe("determinism", () => {
  it("the same inputs give the same output, which is plain JSON", () => {
    const first = diffOf("0.1.0", "0.2.0");
    const second = diffOf("0.1.0", "0.2.0");
    expect(JSON.stringify(second, null, 2)).toBe(JSON.stringify(first, null, 2));
    expect(JSON.parse(JSON.stringify(first))).toEqual(first);
    expect(renderText(second)).toBe(renderText(first));
    expect(renderMarkdown(second)).toBe(renderMarkdown(first));
  });

  it("does not depend on the order of the IR's lists", () => {
    const reversed = (ir: ProtocolIR): ProtocolIR => ({
      ...ir,
      types: [...ir.types].reverse(),
      unions: [...ir.unions].reverse(),
      methods: [...ir.methods].reverse(),
      errors: [...ir.errors].reverse(),
      enums: [...ir.enums].reverse(),
    });
    for (const [a, b] of [["0.1.0", "0.2.0"], ["0.2.6", "0.3.0"]] as const) {
      const expected = JSON.stringify(diffOf(a, b));
      expect(JSON.stringify(diffProtocols(reversed(bundledIR(a)), reversed(bundledIR(b))))).toBe(expected);
    }
  });

  it("does not depend on the order of definitions in the schema file", async () => {
    const schema = readSchema("0.1.0");
    const defs = schema.$defs as Record<string, Json>;
    const names = Object.keys(defs).reverse();
    const order = [...names.filter((_, i) => i % 2 === 0), ...names.filter((_, i) => i % 2 === 1)];
    const file = join(tempDir("a2a-codegen-diff-"), "a2a-0.1.0.json");
    writeFileSync(file, JSON.stringify({ ...schema, $defs: Object.fromEntries(order.map((n) => [n, defs[n] as Json])) }, null, 2));
    const shuffled = loadProtocol({ schema: file, overlay: join(ROOT, "schema", "a2a-0.1.0.overlay.json") }).ir;
    const diff = diffProtocols(shuffled, bundledIR("0.2.0"));
    // The copy has no proto beside it and is not the bundled file: its bindings are not known (null).
    expect(diff.bindings.from).toBeNull();
    expect({ ...changesOnly(diff), bindings: null }).toEqual({ ...changesOnly(diffOf("0.1.0", "0.2.0")), bindings: null });
    expect(renderText(diff)).toBe(renderText(diffOf("0.1.0", "0.2.0")));
  });
});

describe("renderings", () => {
  it("text: title, summary line, grouped sections with +/-/~ markers", () => {
    const text = renderText(diffOf("0.1.0", "0.2.0"));
    const lines = text.split("\n");
    expect(lines[0]).toBe("A2A 0.1.0 → 0.2.0");
    expect(lines[1]).toBe(
      "7 methods → 7 methods: 4 added, 4 removed (4 likely renames), 1 changed; " +
        "50 types → 75 types: 37 added, 12 removed (10 likely renames), 29 changed; " +
        "9 error codes → 11 error codes: 2 added; 9 unions changed; 2 version facts changed",
    );
    for (const line of [
      "Version facts",
      '  ~ discriminatorField: "type" → "kind"',
      "Methods",
      "  ~ tasks/send → message/send (likely rename; same role: send)",
      "  ~ tasks/sendSubscribe → message/stream (likely rename; same role: stream)",
      "      ~ inRequestUnion: false → true",
      "  ~ tasks/resubscribe",
      "      ~ params: TaskQueryParams → TaskIdParams",
      "Types",
      "  ~ TaskSendParams → MessageSendParams (likely rename; same role: params of send)",
      "      + configuration?: MessageSendConfiguration",
      "      - id: string",
      "  ~ TextPart",
      '      + kind: "text"',
      '      - type: "text"',
      "  - FileContent (object): { name?, mimeType?, bytes?, uri? }",
      "Unions",
      '  ~ Part: discriminator tag "type" → tag "kind"',
      "Error codes",
      '  + -32005 ContentTypeNotSupportedError "Incompatible content types"',
    ]) {
      expect(lines).toContain(line);
    }
  });

  it("text: additions of 0.2.6 → 0.3.0", () => {
    const lines = renderText(diffOf("0.2.6", "0.3.0")).split("\n");
    for (const line of [
      '  ~ wellKnownAgentCardPath: "/.well-known/agent.json" → "/.well-known/agent-card.json"',
      "  + agent/getAuthenticatedExtendedCard (role extendedCard, request GetAuthenticatedExtendedCardRequest, no params, response GetAuthenticatedExtendedCardResponse)",
      '  + TransportProtocol (enum): "JSONRPC" | "GRPC" | "HTTP+JSON"',
      "      + signatures?: AgentCardSignature[]",
      '      ~ protocolVersion: default "0.2.5" → "0.3.0"',
      "  ~ SecurityScheme: + MutualTLSSecurityScheme",
      '  + -32007 AuthenticatedExtendedCardNotConfiguredError "Authenticated Extended Card is not configured"',
    ]) {
      expect(lines).toContain(line);
    }
  });

  it("markdown: headings, lists and tables", () => {
    const markdown = renderMarkdown(diffOf("0.1.0", "0.2.0"));
    expect(markdown.startsWith("## A2A 0.1.0 → 0.2.0\n\n7 methods → 7 methods:")).toBe(true);
    for (const line of [
      "### Methods",
      "- likely renamed `tasks/send` → `message/send` (same role: send)",
      "- likely renamed `TaskSendParams` → `MessageSendParams` (same role: params of send)",
      "  - added `configuration?: MessageSendConfiguration`",
      "- `Part`: discriminator tag `\"type\"` → tag `\"kind\"`",
      "| `FileContent` | object | `{ name?, mimeType?, bytes?, uri? }` |",
      "| `SecurityScheme` | union | `APIKeySecurityScheme \\| HTTPAuthSecurityScheme \\| OAuth2SecurityScheme \\| OpenIdConnectSecurityScheme` |",
      '- added -32005 `ContentTypeNotSupportedError` `"Incompatible content types"`',
    ]) {
      expect(markdown.split("\n")).toContain(line);
    }
    expect(renderMarkdown(diffOf("0.2.6", "0.3.0"), { level: 1 }).startsWith("# A2A 0.2.6 → 0.3.0\n")).toBe(true);
  });
});

describe("helpers", () => {
  it("renders schemas shortly", () => {
    expect(schemaText({ type: ["string", "integer"] })).toBe("integer | string");
    expect(schemaText({ type: "array", items: { anyOf: [{ $ref: "#/definitions/Task" }, { $ref: "#/definitions/Message" }] } })).toBe("(Message | Task)[]");
    expect(schemaText({ enum: ["a", "b"], type: "string" })).toBe('"a" | "b"');
    expect(schemaText({ type: "object", properties: { uri: { type: "string" }, x: {} }, required: ["uri"] })).toBe("{ uri: string; x?: unknown }");
    expect(schemaText({ type: "object", additionalProperties: { type: "string" } })).toBe("Record<string, string>");
  });

  it("splits names into words and pointers into labels", () => {
    expect(tokens("tasks/pushNotificationConfig/set")).toEqual(["tasks", "push", "notification", "config", "set"]);
    expect(tokens("JSONRPCResult")).toEqual(["jsonrpc", "result"]);
    expect(pointerLabel("/definitions/SendMessageSuccessResponse/properties/result")).toBe("SendMessageSuccessResponse.result");
    expect(pointerLabel("/definitions/X/anyOf/0/properties/id")).toBe("X.anyOf[0].id");
  });
});

describe("docs/spec-changes.md", () => {
  it("is what specChangesMarkdown() produces (UPDATE_SPEC_CHANGES=1 rewrites it)", async () => {
    if (process.env.UPDATE_SPEC_CHANGES === "1") await writeSpecChanges();
    const expected = await specChangesMarkdown();
    expect(readFileSync(SPEC_CHANGES_PATH, "utf8")).toBe(expected);
    expect(SPEC_CHANGES_PATH).toBe(join(ROOT, "docs", "spec-changes.md"));
  });

  it("covers every consecutive pair of bundled versions, with a contents list", async () => {
    const markdown = await specChangesMarkdown();
    expect(markdown.startsWith("# A2A spec changes\n\nGenerated by a2a-codegen from the bundled schemas; do not edit.\n")).toBe(true);
    const steps = ["0.1.0", "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.3.0"];
    for (let i = 1; i < steps.length; i++) {
      const [a, b] = [steps[i - 1], steps[i]];
      expect(markdown).toContain(`- [${a} → ${b}](#${a}-to-${b}): `);
      expect(markdown).toContain(`<a id="${a}-to-${b}"></a>\n\n## A2A ${a} → ${b}\n`);
    }
    expect(markdown).toContain("## A2A 0.2.2 → 0.2.3\n\nno changes (byte-identical schemas): 7 methods, 76 types, 11 error codes.\n");
    expect(await specChangesMarkdown()).toBe(markdown);
  });
});
