import { describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cleanComment } from "../../src/proto/message-schema.js";
import { protoToJsonSchema } from "../../src/proto/to-json-schema.js";
import { JSONRPC_ERRORS, messageFromErrorName } from "../../src/proto/binding.js";
import { writeSchemaFromProto } from "../../src/proto/cli.js";
import { normalizeSchema } from "../../src/schema/normalize.js";
import { buildIR } from "../../src/ir/build.js";
import { parseOverlay } from "../../src/ir/overlay.js";
import { METHOD_ROLES } from "../../src/ir/types.js";
import type { JsonObject } from "../../src/schema/json.js";
import { ROOT, SCHEMA_DIR, tempDir } from "../support/project.js";

const PROTO = join(ROOT, "schema/a2a-1.0.1.proto");
const SPEC = join(SCHEMA_DIR, "specification-1.0.1.md");

const conversion = protoToJsonSchema(PROTO);
const defs = conversion.schema.definitions as Record<string, JsonObject>;

/** The overlay as the IR takes it today: roles the IR does not know yet (1.0's new `list`) are set aside. */
function irOverlay() {
  const overlay = parseOverlay(conversion.overlay, "a2a-1.0.1.overlay.json");
  const unknown = Object.keys(overlay.roles).filter((r) => !(METHOD_ROLES as readonly string[]).includes(r));
  const roles = Object.fromEntries(Object.entries(overlay.roles).filter(([r]) => !unknown.includes(r)));
  return { overlay: { ...overlay, roles }, unknown };
}

function buildFromConversion() {
  const schema = normalizeSchema(conversion.schema as JsonObject, "a2a-1.0.1.json");
  const { overlay } = irOverlay();
  return buildIR({ schema, overlay, specVersion: "1.0.1", versionBasis: "overlay", file: "a2a-1.0.1.json", sha256: "0".repeat(64) });
}

const RPCS = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "GetExtendedAgentCard",
  "DeleteTaskPushNotificationConfig",
];

describe("proto → JSON Schema", () => {
  it("converts a2a-1.0.1.proto without warnings, deterministically, into sorted definitions", () => {
    expect(conversion.warnings).toEqual([]);
    const again = protoToJsonSchema(PROTO);
    expect(JSON.stringify(again)).toBe(JSON.stringify(conversion));
    const names = Object.keys(defs);
    expect(names).toEqual([...names].sort());
    expect(conversion.schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
  });

  it("has one definition per proto message and enum, named by the proto name", () => {
    const proto = readFileSync(PROTO, "utf8");
    const declared = [...proto.matchAll(/^(?:message|enum) (\w+) \{/gm)].map((m) => m[1] as string);
    expect(declared.length).toBe(46);
    for (const name of declared) expect(defs[name], name).toBeDefined();
    expect(defs.TaskState?.enum).toContain("TASK_STATE_COMPLETED");
    expect(defs.Role?.enum).toEqual(["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT"]);
    // No google.protobuf or google.api type becomes a definition: well-known types are inline.
    expect(Object.keys(defs).filter((n) => /^(Struct|Value|Timestamp|Empty|HttpRule|FieldBehavior)$/.test(n))).toEqual([]);
  });

  it("uses ProtoJSON names, REQUIRED field behaviour, open objects with a type everywhere", () => {
    const task = defs.Task as JsonObject;
    expect(Object.keys(task.properties as JsonObject)).toEqual(["id", "contextId", "status", "artifacts", "history", "metadata"]);
    expect(task.required).toEqual(["id", "status"]);
    expect(task.additionalProperties).toBeUndefined();
    expect(task.type).toBe("object");
    const card = defs.AgentCard as JsonObject;
    expect(card.required).toEqual(["name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"]);
    // A required repeated field must have an element (specification §5.7).
    // Required says "present", not "non-empty": a page of no tasks is a legitimate ListTasksResponse.
    expect((card.properties as JsonObject).skills).toMatchObject({ type: "array" });
    expect((card.properties as JsonObject).skills).not.toHaveProperty("minItems");
    expect((card.properties as JsonObject).signatures).not.toHaveProperty("minItems");
    for (const [name, def] of Object.entries(defs)) {
      if (def.anyOf) {
        for (const variant of def.anyOf as JsonObject[]) if (!variant.$ref) expect(variant.type, name).toBe("object");
      } else if (!def.enum) expect(def.type, name).toBe("object");
      expect(JSON.stringify(def), name).not.toContain('"additionalProperties":false');
    }
  });

  it("maps scalars and well-known types to their ProtoJSON form", () => {
    const prop = (def: string, p: string) => ((defs[def] as JsonObject).properties as JsonObject)[p] as JsonObject;
    expect(prop("TaskStatus", "timestamp")).toMatchObject({ type: "string", format: "date-time" });
    expect(prop("Task", "metadata")).toMatchObject({ type: "object", additionalProperties: {} });
    expect(prop("GetTaskRequest", "historyLength")).toMatchObject({ type: "integer", minimum: -2147483648, maximum: 2147483647 });
    expect(prop("AgentCapabilities", "streaming")).toMatchObject({ type: "boolean" });
    expect(prop("TaskStatus", "state")).toMatchObject({ $ref: "#/definitions/TaskState" });
    expect(prop("AuthorizationCodeOAuthFlow", "scopes")).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    expect(prop("SecurityRequirement", "schemes")).toMatchObject({ type: "object", additionalProperties: { $ref: "#/definitions/StringList" } });
    const part = defs.Part as JsonObject;
    const variants = part.anyOf as JsonObject[];
    const raw = variants.find((v) => (v.required as string[]).includes("raw")) as JsonObject;
    expect((raw.properties as JsonObject).raw).toMatchObject({ type: "string", pattern: "^[A-Za-z0-9+/_-]*={0,2}$" });
    const data = variants.find((v) => (v.required as string[]).includes("data")) as JsonObject;
    expect(Object.keys((data.properties as JsonObject).data as JsonObject)).toEqual(["description"]);
    // The DeleteTaskPushNotificationConfig result is google.protobuf.Empty: an object.
    expect(((defs.DeleteTaskPushNotificationConfigRpcSuccessResponse as JsonObject).properties as JsonObject).result).toMatchObject({ type: "object" });
  });

  it("models each oneof as variants that each declare one member and forbid the others", () => {
    const part = defs.Part as JsonObject;
    expect(part.description).toMatch(/^`Part` represents a container/);
    const variants = part.anyOf as JsonObject[];
    expect(variants.map((v) => v.required)).toEqual([["text"], ["raw"], ["url"], ["data"]]);
    for (const v of variants) {
      expect(Object.keys(v.properties as JsonObject)).toEqual([(v.required as string[])[0], "metadata", "filename", "mediaType"]);
    }
    expect(variants[0]?.not).toEqual({ anyOf: [{ required: ["raw"] }, { required: ["url"] }, { required: ["data"] }] });
    const send = defs.SendMessageResponse as JsonObject;
    expect((send.anyOf as JsonObject[]).map((v) => [v.required, v.not])).toEqual([
      [["task"], { required: ["message"] }],
      [["message"], { required: ["task"] }],
    ]);
    // proto3 `optional` is not a oneof.
    expect((defs.AgentCard as JsonObject).anyOf).toBeUndefined();
  });

  it("derives the JSON-RPC envelopes from the service", () => {
    for (const rpc of RPCS) {
      const request = defs[`${rpc}RpcRequest`] as JsonObject;
      expect(((request.properties as JsonObject).method as JsonObject).const).toBe(rpc);
      expect(defs[`${rpc}RpcSuccessResponse`]?.required).toEqual(["jsonrpc", "id", "result"]);
      expect(defs[`${rpc}RpcResponse`]?.anyOf).toEqual([{ $ref: "#/definitions/JSONRPCErrorResponse" }, { $ref: `#/definitions/${rpc}RpcSuccessResponse` }]);
    }
    const params = (rpc: string) => ((defs[`${rpc}RpcRequest`] as JsonObject).properties as JsonObject).params;
    expect(params("SendMessage")).toMatchObject({ $ref: "#/definitions/SendMessageRequest" });
    expect(params("SendStreamingMessage")).toMatchObject({ $ref: "#/definitions/SendMessageRequest" });
    expect(params("CreateTaskPushNotificationConfig")).toMatchObject({ $ref: "#/definitions/TaskPushNotificationConfig" });
    expect(defs.GetTaskRpcRequest?.required).toEqual(["jsonrpc", "id", "method", "params"]);
    // Its request message has no required field: params may be omitted (the §9.4.8 example does).
    expect(defs.GetExtendedAgentCardRpcRequest?.required).toEqual(["jsonrpc", "id", "method"]);
    const result = (rpc: string) => ((defs[`${rpc}RpcSuccessResponse`] as JsonObject).properties as JsonObject).result;
    expect(result("SendStreamingMessage")).toMatchObject({ $ref: "#/definitions/StreamResponse" });
    expect(result("SubscribeToTask")).toMatchObject({ $ref: "#/definitions/StreamResponse" });
    expect(result("GetExtendedAgentCard")).toMatchObject({ $ref: "#/definitions/AgentCard" });
    expect((defs.A2ARequest?.anyOf as JsonObject[]).map((r) => r.$ref)).toEqual(RPCS.map((r) => `#/definitions/${r}RpcRequest`));
    expect(defs.JSONRPCErrorResponse?.required).toEqual(["jsonrpc", "id", "error"]);
    expect((((defs.JSONRPCErrorResponse as JsonObject).properties as JsonObject).id as JsonObject).type).toEqual(["string", "integer", "null"]);
  });

  it("lists every error of the specification text with its code (tables of §5.4 and §9.5)", () => {
    const spec = readFileSync(SPEC, "utf8");
    const rows = (heading: string) => {
      const start = spec.indexOf(heading);
      const table = spec.slice(start).split("\n\n").find((block) => block.trimStart().startsWith("|")) as string;
      return table
        .split("\n")
        .slice(2)
        .map((line) => line.split("|").slice(1, -1).map((c) => c.trim().replace(/^[`"]|[`"]$/g, "")));
    };
    const a2a = rows("### 5.4. Error Code Mappings").map(([name, code]) => ({ name, code: Number(code) }));
    const standard = rows("**Standard JSON-RPC Error Codes:**").map(([code, name, message]) => ({ name, code: Number(code), message }));
    const descriptions = new Map(rows("**A2A-Specific Errors:**").map(([name, description]) => [name, description]));
    expect(a2a.map((e) => e.code)).toEqual([-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);
    expect(JSONRPC_ERRORS.map((e) => ({ name: e.name, code: e.code }))).toEqual([...standard.map(({ name, code }) => ({ name, code })), ...a2a]);
    for (const e of JSONRPC_ERRORS) {
      const def = defs[e.name] as JsonObject;
      const props = def.properties as JsonObject;
      expect((props.code as JsonObject).const).toBe(e.code);
      if (e.a2a) {
        expect(e.description).toBe(descriptions.get(e.name));
        expect((props.message as JsonObject).default).toBe(messageFromErrorName(e.name));
      } else {
        expect((props.message as JsonObject).default).toBe(standard.find((s) => s.name === e.name)?.message);
      }
    }
    expect(messageFromErrorName("TaskNotFoundError")).toBe("Task not found"); // as in the §9.5 example
    const union = (((defs.JSONRPCErrorResponse as JsonObject).properties as JsonObject).error as JsonObject).anyOf as JsonObject[];
    expect(union.map((r) => r.$ref)).toEqual(["#/definitions/JSONRPCError", ...JSONRPC_ERRORS.map((e) => `#/definitions/${e.name}`)]);
  });

  it("produces the overlay with streaming methods read from the proto and every role", () => {
    expect(conversion.overlay).toMatchObject({
      version: "1.0.1",
      wellKnownAgentCardPath: "/.well-known/agent-card.json",
      streamingMethods: ["SendStreamingMessage", "SubscribeToTask"],
      responses: {},
      roles: {
        send: "SendMessage",
        stream: "SendStreamingMessage",
        get: "GetTask",
        list: "ListTasks",
        cancel: "CancelTask",
        resubscribe: "SubscribeToTask",
        pushSet: "CreateTaskPushNotificationConfig",
        pushGet: "GetTaskPushNotificationConfig",
        pushList: "ListTaskPushNotificationConfigs",
        pushDelete: "DeleteTaskPushNotificationConfig",
        extendedCard: "GetExtendedAgentCard",
      },
    });
    expect(Object.keys(conversion.overlay.roles as JsonObject)).toHaveLength(11);
  });

  it("drops AIP internal comments and linter directives from descriptions", () => {
    expect(cleanComment("(-- api-linter: x\naip.dev/not-precedent: y --)\nRequired. The header.")).toBe("Required. The header.");
    expect(cleanComment("protolint:disable X\nThe history.")).toBe("The history.");
    expect(((defs.AgentCardSignature as JsonObject).properties as JsonObject).protected).toMatchObject({
      description: "Required. The protected JWS header for the signature. This is always a\nbase64url-encoded JSON object.",
    });
    expect(defs.AgentCard?.description).not.toContain("Next ID");
    expect(JSON.stringify(conversion.schema)).not.toMatch(/protolint|api-linter|\(--/);
  });

  it("does not mutate its input and writes the same text through writeSchemaFromProto", () => {
    const before = readFileSync(PROTO, "utf8");
    const dir = tempDir();
    const out = join(dir, "a2a-1.0.1.json");
    const text = writeSchemaFromProto(PROTO, out);
    expect(readFileSync(PROTO, "utf8")).toBe(before);
    expect(readFileSync(out, "utf8")).toBe(text);
    expect(JSON.parse(text)).toEqual(conversion.schema);
    expect(text.endsWith("}\n")).toBe(true);
    expect(writeSchemaFromProto(PROTO)).toBe(text);
  });
});

describe("proto front end errors", () => {
  const write = (dir: string, file: string, text: string) => {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
    return join(dir, file);
  };
  const minimal = (body: string) =>
    `syntax = "proto3";\npackage t.v1;\nmessage AgentCard { string name = 1; }\nservice S { rpc Get(AgentCard) returns (AgentCard); }\n${body}`;

  it("names both types when two would get the same definition name", () => {
    const dir = tempDir();
    const path = write(dir, "a2a-9.9.9.proto", minimal("message Outer { message Inner {} }\nmessage OuterInner {}\n"));
    expect(() => protoToJsonSchema(path)).toThrow(/"OuterInner" would be used twice: by proto message t\.v1\.Outer\.Inner and by proto message t\.v1\.OuterInner/);
  });

  it("refuses a message that collides with an envelope name", () => {
    const dir = tempDir();
    const path = write(dir, "a2a-9.9.9.proto", minimal("message GetRpcRequest {}\n"));
    expect(() => protoToJsonSchema(path)).toThrow(/"GetRpcRequest" would be used twice/);
  });

  it("names nested types Outer.Inner as OuterInner and reports a missing import", () => {
    const dir = tempDir();
    const path = write(dir, "a2a-9.9.9.proto", minimal("message Outer { message Inner { int64 n = 1; } Inner inner = 1; }\n"));
    const result = protoToJsonSchema(path);
    const d = result.schema.definitions as Record<string, JsonObject>;
    expect(d.OuterInner?.properties).toMatchObject({ n: { type: ["string", "integer"], pattern: "^-?[0-9]+$" } });
    expect(result.overlay.version).toBe("9.9.9");
    expect(result.warnings.some((w) => w.includes('no rpc "SendMessage"'))).toBe(true);
    const broken = write(dir, "b.proto", 'syntax = "proto3";\nimport "not/there.proto";\n');
    expect(() => protoToJsonSchema(broken)).toThrow(/cannot find import "not\/there\.proto"/);
  });

  it("finds imports in includeDirs", () => {
    const dir = tempDir();
    write(dir, "inc/common/v1/x.proto", 'syntax = "proto3";\npackage common.v1;\nmessage Extra { string note = 1; }\n');
    const path = write(dir, "main/a2a-9.9.9.proto", minimal('import "common/v1/x.proto";\nmessage Holder { common.v1.Extra extra = 1; }\n'));
    const result = protoToJsonSchema(path, { includeDirs: [join(dir, "inc")] });
    expect((result.schema.definitions as JsonObject).Extra).toMatchObject({ type: "object", properties: { note: { type: "string" } } });
  });
});

describe("the converted schema in the pipeline", () => {
  it("normalizes and builds the IR: 11 methods, 2 streaming, presence unions, every error code", () => {
    const ir = buildFromConversion();
    expect(ir.methods.map((m) => m.method).sort()).toEqual([...RPCS].sort());
    expect(ir.methods.map((m) => m.method)).toEqual(RPCS); // the request union's order
    expect(ir.methods.filter((m) => m.streaming).map((m) => m.method)).toEqual(["SendStreamingMessage", "SubscribeToTask"]);
    for (const m of ir.methods) {
      expect(m.responseType, m.method).toBe(`${m.method}RpcResponse`);
      expect(m.requestType).toBe(`${m.method}RpcRequest`);
      expect(m.inRequestUnion).toBe(true);
    }
    expect(ir.methods.find((m) => m.method === "GetTask")).toMatchObject({ paramsType: "GetTaskRequest", paramsRequired: true });
    expect(ir.methods.find((m) => m.method === "GetExtendedAgentCard")).toMatchObject({ paramsType: "GetExtendedAgentCardRequest", paramsRequired: false });
    expect(ir.requestUnion).toBe("A2ARequest");
    expect(ir.responseUnion).toBe("JSONRPCResponse");

    const union = (name: string) => ir.unions.find((u) => u.definition === name);
    expect(union("Part")?.dispatch).toMatchObject({
      kind: "presence",
      markers: [{ property: "text" }, { property: "raw" }, { property: "url" }, { property: "data" }],
    });
    expect(union("StreamResponse")?.dispatch).toMatchObject({
      kind: "presence",
      markers: [{ property: "task" }, { property: "message" }, { property: "statusUpdate" }, { property: "artifactUpdate" }],
    });
    for (const name of ["SendMessageResponse", "SecurityScheme", "OAuthFlows"]) expect(union(name)?.dispatch.kind, name).toBe("presence");
    expect(union("A2ARequest")?.dispatch).toMatchObject({ kind: "tag", property: "method" });
    expect(union("GetTaskRpcResponse")?.dispatch).toMatchObject({ kind: "presence", markers: [{ property: "error" }, { property: "result" }] });

    const codes = ir.errors.map((e) => e.code);
    for (let code = -32001; code >= -32009; code--) expect(codes).toContain(code);
    for (const code of [-32700, -32600, -32601, -32602, -32603]) expect(codes).toContain(code);
    expect(ir.errors.find((e) => e.code === -32001)).toMatchObject({ name: "TaskNotFoundError", defaultMessage: "Task not found" });
    expect(ir.enums.find((e) => e.name === "TaskState")?.values).toContain("TASK_STATE_AUTH_REQUIRED");
    expect(ir.profile.taskStates).toContain("TASK_STATE_WORKING");
    expect(ir.profile.jsonrpcRequired).toBe(true);
  });

  it("gives the IR every role; `list` only once the IR knows that role", () => {
    const { unknown } = irOverlay();
    // src/ir/types.ts METHOD_ROLES predates 1.0's ListTasks: `list` is the only role it may not know.
    expect(unknown.every((r) => r === "list")).toBe(true);
    const ir = buildFromConversion();
    expect(ir.profile.methods).toMatchObject({ send: "SendMessage", stream: "SendStreamingMessage", resubscribe: "SubscribeToTask", extendedCard: "GetExtendedAgentCard" });
    expect(ir.profile.params.send).toBe("SendMessageRequest");
  });
});

describe("the converted schema through the generator", () => {
  it("generates models, validators, protocol, client and servers in memory", async () => {
    const { generate } = await import("../../src/generate.js");
    const dir = tempDir();
    const schemaPath = join(dir, "a2a-1.0.1.json");
    const overlayPath = join(dir, "a2a-1.0.1.overlay.json");
    writeFileSync(schemaPath, JSON.stringify(conversion.schema, null, 2));
    writeFileSync(overlayPath, JSON.stringify(irOverlay().overlay, null, 2));
    const result = await generate({ schema: schemaPath, overlay: overlayPath, cwd: dir });
    expect(result.ir.specVersion).toBe("1.0.1");
    const models = result.files["models.ts"] as string;
    expect(models).toMatch(/export type Part =/);
    expect(models).toMatch(/export type StreamResponse =/);
    expect(models).toMatch(/export interface Task \{/);
    expect(Object.keys(result.files)).toContain("client.ts");
  });
});
