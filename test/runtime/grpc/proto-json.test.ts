import { readFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { beforeAll, describe, expect, it } from "vitest";
import { loadGrpcBinding, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { decodeStatus, encodeStatus } from "../../../src/runtime/grpc/google-rpc.js";
import { messageFromJson, messageToJson, ProtoJsonError } from "../../../src/runtime/grpc/proto-json.js";
import { codeOfStatus, ERROR_STATUS, GRPC_STATUS, statusOfError } from "../../../src/runtime/grpc/status.js";
import { corpusRows, readCorpusDocument } from "../../support/corpus.js";
import { generatedValidators, SCHEMA_DIR } from "../../support/project.js";
import { binding101, REQUEST_TYPES } from "../../support/grpc/fake-service.js";

/**
 * ProtoJSON (schema/specification-1.0.1.md §5.5-5.6: camelCase, enum names, ISO 8601 UTC timestamps) ⇄
 * protobuf through the bundled 1.0.1 proto, and the error table of §5.4.
 */
let binding: LoadedGrpcBinding;
const type = (name: string) => binding.root.lookupType(`lf.a2a.v1.${name}`);

/** JSON → protobuf bytes → JSON, as a value crosses the binding. */
function roundTrip(name: string, json: unknown, options = {}, fromOptions = {}): unknown {
  const t = type(name);
  return messageToJson(t, t.decode(t.encode(messageFromJson(t, json, "", fromOptions)).finish()), options);
}

beforeAll(async () => {
  binding = loadGrpcBinding(await binding101());
});

describe("ProtoJSON ⇄ protobuf", () => {
  it("every valid 1.0 request and agent card of the real-world corpus crosses the wire and stays valid", async () => {
    const validators = await generatedValidators("1.0.1");
    const checked: string[] = [];
    const refused: string[] = [];
    for (const row of corpusRows().filter((r) => r.version === "1.0")) {
      const document = readCorpusDocument(row.file) as { params?: unknown };
      const definition = row.role === "card" ? "AgentCard" : row.role === "request" ? REQUEST_TYPES[row.method] : undefined;
      const value = row.role === "card" ? document : document.params ?? {};
      if (!definition || !validators[definition]?.(value)) continue;
      // A card is an answer: the server leaves out fields the proto does not have (such as 0.3's protocolVersion).
      // A request with such a field (0.3's configuration.blocking), or a timestamp that is not one (the schema
      // does not assert `format`), cannot be carried: the client refuses it, naming the field.
      let once: unknown;
      try {
        once = roundTrip(definition, value, { requiredDefaults: true }, { ignoreUnknownFields: row.role === "card" });
      } catch (error) {
        expect(error, row.file).toBeInstanceOf(ProtoJsonError);
        expect((error as Error).message, row.file).toMatch(/: unknown field of |: expected an RFC 3339 timestamp/);
        refused.push(row.file);
        continue;
      }
      expect(validators[definition]?.(once), `${row.file}: ${JSON.stringify(validators[definition]?.errors)}`).toBe(true);
      expect(roundTrip(definition, once, { requiredDefaults: true }), row.file).toEqual(once);
      checked.push(row.file);
    }
    expect(checked.length).toBeGreaterThanOrEqual(20);
    expect(refused.length).toBeLessThan(checked.length / 4);
  });

  it("a message crosses unchanged: every part kind, references, extensions", () => {
    const message = { messageId: "m", role: "ROLE_USER", parts: [{ text: "a" }, { url: "https://x/y.png", mediaType: "image/png", filename: "y.png" }, { data: [1, "two", { three: null }] }, { raw: "AAE=" }], referenceTaskIds: ["t0"], extensions: ["urn:x"], metadata: { k: [] } };
    expect(roundTrip("Message", message)).toEqual(message);
  });

  it("google.protobuf.Struct and Value carry any JSON: nested objects, arrays, null, booleans, numbers", () => {
    const metadata = { a: { b: [1, 2.5, -3e10, true, false, null, "s", { deep: [[]] }] }, empty: {}, list: [] };
    expect(roundTrip("Task", { id: "t", status: { state: "TASK_STATE_WORKING" }, metadata })).toMatchObject({ metadata });
    expect(roundTrip("Part", { data: null })).toEqual({ data: null });
    expect(roundTrip("Part", { data: "just a string" })).toEqual({ data: "just a string" });
  });

  it("Timestamp is RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits; offsets are normalized to Z (§5.6.1)", () => {
    const at = (timestamp: string) => ((roundTrip("TaskStatus", { state: "TASK_STATE_WORKING", timestamp }) as { timestamp: string }).timestamp);
    expect(at("2025-01-02T03:04:05Z")).toBe("2025-01-02T03:04:05Z");
    expect(at("2025-01-02T03:04:05.120Z")).toBe("2025-01-02T03:04:05.120Z");
    expect(at("2025-01-02T03:04:05.000001Z")).toBe("2025-01-02T03:04:05.000001Z");
    expect(at("2025-01-02T03:04:05.123456789Z")).toBe("2025-01-02T03:04:05.123456789Z");
    expect(at("2025-01-02T05:04:05+02:00")).toBe("2025-01-02T03:04:05Z");
    expect(at("1969-12-31T23:59:59Z")).toBe("1969-12-31T23:59:59Z");
    expect(() => messageFromJson(type("TaskStatus"), { timestamp: "yesterday" })).toThrow(new ProtoJsonError("timestamp", 'expected an RFC 3339 timestamp such as "2025-01-01T12:00:00Z", got the string "yesterday"'));
    expect(() => messageFromJson(type("TaskStatus"), { timestamp: "2025-02-30T00:00:00Z" })).toThrow(/timestamp: not a valid date-time/);
  });

  it("bytes are base64 (standard or URL-safe in, standard out)", () => {
    expect(roundTrip("Part", { raw: "-_8=" })).toEqual({ raw: "+/8=" });
    expect(() => messageFromJson(type("Part"), { raw: "not base64!" })).toThrow(/^raw: expected base64 bytes/);
  });

  it("presence: proto3 optional fields and oneof members keep their defaults; plain scalars at default are left out", () => {
    expect(roundTrip("GetTaskRequest", { id: "t", historyLength: 0 })).toEqual({ id: "t", historyLength: 0 });
    expect(roundTrip("GetTaskRequest", { id: "t" })).toEqual({ id: "t" });
    expect(roundTrip("Part", { text: "" })).toEqual({ text: "" });
    expect(roundTrip("TaskArtifactUpdateEvent", { taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [] }, append: false })).toEqual({ taskId: "t", contextId: "c", artifact: { artifactId: "a" } });
  });

  it("REQUIRED fields at their default are written when reading an answer, as the JSON-RPC binding writes them", () => {
    const t = type("ListTasksResponse");
    const decoded = t.decode(t.encode(messageFromJson(t, { tasks: [] })).finish());
    expect(messageToJson(t, decoded)).toEqual({});
    expect(messageToJson(t, decoded, { requiredDefaults: true })).toEqual({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
  });

  it("ProtoJSON parsers accept the proto field name too, and null as 'not set'", () => {
    expect(roundTrip("GetTaskRequest", { id: "t", history_length: 2, tenant: null })).toEqual({ id: "t", historyLength: 2 });
  });

  it("bad values name the field and what is wrong", () => {
    const fails = (name: string, json: unknown) => {
      try {
        messageFromJson(type(name), json);
      } catch (error) {
        expect(error).toBeInstanceOf(ProtoJsonError);
        return (error as Error).message;
      }
      throw new Error("accepted");
    };
    expect(fails("SendMessageRequest", { message: { parts: [{ text: 1 }] } })).toBe("message.parts[0].text: expected a string, got number 1");
    expect(fails("SendMessageRequest", { message: { parts: {} } })).toBe("message.parts: expected an array, got an object");
    expect(fails("SendMessageRequest", { configuration: { historyLength: 1.5 } })).toBe("configuration.historyLength: expected an integer (int32), got number 1.5");
    expect(fails("SendMessageRequest", { configuration: { historyLength: 2 ** 31 } })).toBe("configuration.historyLength: 2147483648 is out of the range of int32");
    expect(fails("ListTasksRequest", { status: "DONE" })).toMatch(/^status: unknown value "DONE" of enum TaskState; expected one of TASK_STATE_UNSPECIFIED, /);
    expect(fails("ListTasksRequest", { status: 99 })).toBe("status: unknown value 99 of enum TaskState");
    expect(fails("SecurityScheme", { apiKeySecurityScheme: { name: "k", location: "header" }, mtlsSecurityScheme: {} })).toMatch(/^mtlsSecurityScheme: only one of /);
    expect(fails("GetTaskRequest", { id: "x", historyLength: 1, history_length: 2 })).toBe('historyLength: given twice (as "historyLength" and "history_length")');
    expect(fails("GetTaskRequest", [])).toBe("expected an object (GetTaskRequest), got an array");
    expect(fails("Part", { data: Number.NaN })).toBe("data: NaN has no JSON form");
    let deep: unknown = 1;
    for (let i = 0; i < 200; i++) deep = [deep];
    expect(fails("Part", { data: deep })).toMatch(/^data(\[0\])+: nested deeper than 100 messages$/);
  });

  it("an error deep in lists, maps, Structs and ListValues names the whole path, after the caller's own prefix", () => {
    // The conversion builds a field's path only when it fails (the path of each nested value is added on the way out).
    const error = (name: string, json: unknown, path = "") => {
      try {
        messageFromJson(type(name), json, path);
      } catch (e) {
        return e instanceof ProtoJsonError ? { field: e.field, message: e.message } : e;
      }
      throw new Error("accepted");
    };
    expect(error("SendMessageRequest", { message: { parts: [{ text: "a" }, { text: "b", bogus: 1 }] } })).toEqual({ field: "message.parts[1].bogus", message: "message.parts[1].bogus: unknown field of Part" });
    expect(error("SendMessageRequest", { message: { metadata: { a: { b: [1, Number.POSITIVE_INFINITY] } } } })).toEqual({ field: "message.metadata.a.b[1]", message: "message.metadata.a.b[1]: Infinity has no JSON form" });
    expect(error("Part", { data: [1, Number.POSITIVE_INFINITY] })).toEqual({ field: "data[1]", message: "data[1]: Infinity has no JSON form" });
    expect(error("AgentCard", { securitySchemes: { key: { apiKeySecurityScheme: { name: 1 } } } })).toEqual({ field: "securitySchemes.key.apiKeySecurityScheme.name", message: "securitySchemes.key.apiKeySecurityScheme.name: expected a string, got number 1" });
    expect(error("AgentCard", { securitySchemes: { key: { apiKeySecurityScheme: {}, mtlsSecurityScheme: {} } } })).toMatchObject({ field: "securitySchemes.key.mtlsSecurityScheme" });
    expect(error("SendMessageRequest", { message: { parts: [{ raw: "not base64!" }] } }, "params")).toEqual({ field: "params.message.parts[0].raw", message: 'params.message.parts[0].raw: expected base64 bytes, got the string "not base64!"' });
    expect(error("TaskStatus", { timestamp: "yesterday" }, "task.status")).toMatchObject({ field: "task.status.timestamp" });
  });

  it("an error decoding a nested value names its whole path (lists, maps, Structs, a caller's prefix)", () => {
    const decodeError = (name: string, message: object, path = "") => {
      const t = type(name);
      try {
        messageToJson(t, t.decode(t.encode(message).finish()), {}, path);
      } catch (e) {
        return e instanceof ProtoJsonError ? e.message : e;
      }
      throw new Error("accepted");
    };
    expect(decodeError("SendMessageRequest", { message: { message_id: "m", role: 42, parts: [{ text: "a" }] } })).toBe("message.role: unknown value 42 of enum Role");
    expect(decodeError("Task", { id: "t", history: [{ message_id: "a", role: 1 }, { message_id: "b", role: 42 }] })).toBe("history[1].role: unknown value 42 of enum Role");
    expect(decodeError("Task", { id: "t", status: { state: 42 } }, "task")).toBe("task.status.state: unknown value 42 of enum TaskState");
    // The bundled google.protobuf types name their fields in either case: read the names by field number.
    const name = (typeName: string, id: number) => binding.root.lookupType(`google.protobuf.${typeName}`).fieldsById[id]?.name as string;
    const number = (n: number) => ({ [name("Value", 2)]: n });
    const infinity = { [name("Struct", 1)]: { a: { [name("Value", 6)]: { [name("ListValue", 1)]: [number(1), number(Number.POSITIVE_INFINITY)] } } } };
    expect(decodeError("SendMessageRequest", { message: { message_id: "m", role: 1, parts: [{ text: "a" }], metadata: infinity } })).toBe("message.metadata.a[1]: Infinity has no JSON form");
    const scheme = { security_schemes: { key: { oauth2_security_scheme: { flows: { client_credentials: { token_url: "u", scopes: {} } } } } }, capabilities: {} };
    const card = type("AgentCard");
    expect(messageToJson(card, card.decode(card.encode(scheme).finish()))).toMatchObject({ securitySchemes: { key: { oauth2SecurityScheme: {} } } });
  });

  it("decoding an unknown enum number is an error for a server, the number for a client (ProtoJSON)", () => {
    const t = type("TaskStatus");
    const bytes = protobuf.Writer.create().uint32(8).int32(42).finish(); // field 1 (state), varint 42
    expect(() => messageToJson(t, t.decode(bytes))).toThrow(new ProtoJsonError("state", "unknown value 42 of enum TaskState"));
    expect(messageToJson(t, t.decode(bytes), { unknownEnums: "number" })).toEqual({ state: 42 });
  });
});

describe("google.rpc.Status details", () => {
  it("ErrorInfo and BadRequest round-trip through grpc-status-details-bin; unknown types keep their bytes", () => {
    const details = [
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "t" } },
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.parts", description: "At least one part is required" }] },
    ];
    const bytes = encodeStatus(binding.root, { code: 5, message: "gone", details });
    expect(decodeStatus(binding.root, bytes)).toEqual({ code: 5, message: "gone", details });
    const other = encodeStatus(binding.root, { code: 3, message: "m", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1s" }] });
    expect(decodeStatus(binding.root, other).details).toEqual([]); // a type this runtime does not declare is not sent
  });
});

describe("the error table (§5.4)", () => {
  /** The §5.4 table of the specification: A2A error → gRPC status. */
  function specTable(): Array<[string, string]> {
    const text = readFileSync(join(SCHEMA_DIR, "specification-1.0.1.md"), "utf8");
    const section = text.slice(text.indexOf("### 5.4. Error Code Mappings"), text.indexOf("### 5.5."));
    return [...section.matchAll(/^\|\s*`(\w+)Error`\s*\|\s*`(-\d+)`\s*\|\s*`(\w+)`\s*\|/gm)].map((m) => [m[1] as string, m[3] as string]);
  }

  it("maps every A2A error of the specification's table to its gRPC status", () => {
    const rows = specTable();
    expect(rows.length).toBe(9);
    for (const [name, status] of rows) expect(ERROR_STATUS[name], name).toBe(status);
  });

  it("a status and its ErrorInfo reason come back to the same JSON-RPC code, for every error of 1.0.1", async () => {
    const errorCodes = (await binding101()).errorCodes;
    for (const [name, code] of Object.entries(errorCodes)) {
      const status = statusOfError(Object.assign(new Error("x"), { code }), errorCodes);
      expect(status.code, name).toBe(GRPC_STATUS[ERROR_STATUS[name] ?? "UNKNOWN"]);
      if (code <= -32001 && code >= -32099) expect(status.details[0], name).toMatchObject({ reason: name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase(), domain: "a2a-protocol.org" });
      const back = codeOfStatus(status.code, status.details, errorCodes);
      // JSON-RPC 2.0's own errors share INVALID_ARGUMENT; their category comes back (-32602).
      expect(back, name).toBe(["JSONParse", "InvalidRequest"].includes(name) ? -32602 : code);
    }
  });

  it("0.x error data (any value, or validation issues) becomes ErrorInfo metadata and a BadRequest", () => {
    const codes = { TaskNotFound: -32001, InvalidParams: -32602 };
    expect(statusOfError(Object.assign(new Error("nf"), { code: -32001, data: { id: "t", n: 1 } }), codes).details).toEqual([
      { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { id: "t", n: "1" } },
    ]);
    expect(statusOfError(Object.assign(new Error("bad"), { code: -32602, data: { issues: [{ pointer: "/message/parts/0/kind", message: "expected text" }] } }), codes)).toEqual({
      code: GRPC_STATUS.INVALID_ARGUMENT,
      message: "bad",
      details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.parts[0].kind", description: "expected text" }] }],
    });
  });
});
