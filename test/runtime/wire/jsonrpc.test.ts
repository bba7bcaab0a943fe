import { describe, it, expect } from "vitest";
import {
  checkRequestEnvelope,
  failure,
  isJsonRpcResponse,
  JSON_RPC_ERROR,
  jsonRpcError,
  parseJsonSafe,
  success,
  type JsonRpcId,
} from "../../../src/runtime/wire/jsonrpc.js";

/** The envelope check of a JSON text (which must parse). */
function checkText(text: string): ReturnType<typeof checkRequestEnvelope> {
  const parsed = parseJsonSafe(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return checkRequestEnvelope(parsed.value);
}

function expectInvalid(value: unknown, id: JsonRpcId, data: { pointer: string; expected: string; got: string }): void {
  const result = checkRequestEnvelope(value);
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.id).toBe(id);
  expect(result.error.code).toBe(-32600);
  expect(result.error.message).toMatch(/^Invalid Request/);
  expect(result.error.data).toEqual(data);
}

describe("parseJsonSafe", () => {
  it("parses valid JSON", () => {
    expect(parseJsonSafe('{"a":[1,"two",null,true,{"b":{}}]}')).toEqual({ ok: true, value: { a: [1, "two", null, true, { b: {} }] } });
    expect(parseJsonSafe(" 42 ")).toEqual({ ok: true, value: 42 });
    expect(parseJsonSafe('"\\u00e9"')).toEqual({ ok: true, value: "é" });
  });

  it("drops __proto__ so spreading the result cannot pollute Object.prototype", () => {
    const parsed = parseJsonSafe('{"__proto__":{"polluted":1},"a":1}');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const value = parsed.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(["a"]);
    expect(Object.prototype.hasOwnProperty.call(value, "__proto__")).toBe(false);
    const spread: Record<string, unknown> = { ...value };
    const assigned: Record<string, unknown> = Object.assign({}, value);
    expect(Object.getPrototypeOf(spread)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(assigned)).toBe(Object.prototype);
    expect(spread.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("shows what plain JSON.parse would let through (the hazard being guarded)", () => {
    const raw = JSON.parse('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(raw, "__proto__")).toBe(true);
    expect((Object.assign({}, raw) as Record<string, unknown>).polluted).toBe(1); // the copy's prototype changed
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("drops __proto__ at every depth, in arrays and when spelled with escapes", () => {
    const parsed = parseJsonSafe('{"a":{"b":[{"__proto__":{"x":1},"c":2}]},"\\u005f_proto__":{"y":1},"__pro\\u0074o__":3}');
    expect(parsed).toEqual({ ok: true, value: { a: { b: [{ c: 2 }] } } });
    if (!parsed.ok) return;
    const inner = ((parsed.value as { a: { b: object[] } }).a.b[0] ?? {}) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(inner, "__proto__")).toBe(false);
    expect({ ...inner }.x).toBeUndefined();
  });

  it("drops a __proto__ spelled only with escapes", () => {
    const parsed = parseJsonSafe('{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":1}}');
    expect(parsed).toEqual({ ok: true, value: {} });
    if (parsed.ok) expect(Object.assign({}, parsed.value) as Record<string, unknown>).not.toHaveProperty("polluted");
  });

  it("keeps __proto__ as a string value and other look-alike keys", () => {
    expect(parseJsonSafe('{"k":"__proto__","__proto":1,"proto__":2,"constructor":{"prototype":3}}')).toEqual({
      ok: true,
      value: { k: "__proto__", __proto: 1, proto__: 2, constructor: { prototype: 3 } },
    });
  });

  it("reports where a parse error is, as line and column", () => {
    const one = parseJsonSafe('{"a":1,}');
    expect(one).toEqual({ ok: false, message: expect.stringMatching(/^Invalid JSON at line 1, column 8: /) });
    const three = parseJsonSafe('{\n  "a": 1\n  "b": 2\n}');
    expect(three.ok).toBe(false);
    if (!three.ok) {
      expect(three.message).toMatch(/^Invalid JSON at line 3, column 3: /);
      expect(three.message).not.toMatch(/position/);
    }
  });

  it("reports the end of the input for truncated JSON", () => {
    expect(parseJsonSafe("")).toEqual({ ok: false, message: expect.stringMatching(/^Invalid JSON at line 1, column 1: /) });
    expect(parseJsonSafe('{"a":\n[1,2')).toEqual({ ok: false, message: expect.stringMatching(/^Invalid JSON at line 2, column 5: /) });
  });

  it("still fails cleanly when the engine gives no position", () => {
    const result = parseJsonSafe("xyz");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^Invalid JSON/);
  });

  it("never throws, also for deep or odd inputs", () => {
    expect(parseJsonSafe("[".repeat(100_000)).ok).toBe(false);
    expect(parseJsonSafe("\u0000").ok).toBe(false);
    expect(parseJsonSafe("NaN").ok).toBe(false);
  });
});

describe("checkRequestEnvelope", () => {
  it("accepts a request and copies only the envelope", () => {
    const result = checkRequestEnvelope({ jsonrpc: "2.0", id: 1, method: "message/send", params: { a: 1 }, extra: true });
    expect(result).toEqual({ ok: true, notification: false, request: { jsonrpc: "2.0", id: 1, method: "message/send", params: { a: 1 } } });
  });

  it("treats a request without id as a notification, and leaves out absent members", () => {
    const result = checkRequestEnvelope({ jsonrpc: "2.0", method: "tasks/cancel" });
    expect(result).toEqual({ ok: true, notification: true, request: { jsonrpc: "2.0", method: "tasks/cancel" } });
    if (result.ok) expect(Object.keys(result.request)).toEqual(["jsonrpc", "method"]);
  });

  it.each<[string, JsonRpcId]>([
    ['{"jsonrpc":"2.0","id":0,"method":"m"}', 0],
    ['{"jsonrpc":"2.0","id":"0","method":"m"}', "0"],
    ['{"jsonrpc":"2.0","id":"","method":"m"}', ""],
    ['{"jsonrpc":"2.0","id":null,"method":"m"}', null],
    ['{"jsonrpc":"2.0","id":-7,"method":"m"}', -7],
    ['{"jsonrpc":"2.0","id":1.5,"method":"m"}', 1.5],
  ])("accepts the id of %s and keeps it", (text, id) => {
    const result = checkText(text);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.request.id).toBe(id);
    expect(result.notification).toBe(false);
  });

  it.each<[string, unknown, string]>([
    ["an object", { a: 1 }, "an object"],
    ["an array", [1], "an array"],
    ["a boolean", true, "true"],
    ["an infinite number", Number.POSITIVE_INFINITY, "Infinity"],
    ["NaN", Number.NaN, "NaN"],
  ])("refuses an id that is %s and echoes null", (_, id, got) => {
    expectInvalid({ jsonrpc: "2.0", id, method: "m" }, null, { pointer: "/id", expected: "a string, a number or null", got });
  });

  it("echoes a valid id, id 0 included, when something else is wrong", () => {
    expectInvalid({ jsonrpc: "1.0", id: 0, method: "m" }, 0, { pointer: "/jsonrpc", expected: '"2.0"', got: '"1.0"' });
    expectInvalid({ jsonrpc: "2.0", id: "abc", method: "" }, "abc", { pointer: "/method", expected: "a non-empty string", got: '""' });
    expectInvalid({ jsonrpc: "2.0", id: null, method: "m", params: 1 }, null, { pointer: "/params", expected: "an object or an array", got: "1" });
  });

  it("never echoes an invalid id, even when it is not the first problem", () => {
    expectInvalid({ jsonrpc: "1.0", id: { x: 1 }, method: "m" }, null, { pointer: "/jsonrpc", expected: '"2.0"', got: '"1.0"' });
  });

  it("checks jsonrpc", () => {
    expectInvalid({ id: 1, method: "m" }, 1, { pointer: "/jsonrpc", expected: '"2.0"', got: "missing" });
    expectInvalid({ jsonrpc: 2, id: 1, method: "m" }, 1, { pointer: "/jsonrpc", expected: '"2.0"', got: "2" });
    expectInvalid({ jsonrpc: "2.0 ", id: 1, method: "m" }, 1, { pointer: "/jsonrpc", expected: '"2.0"', got: '"2.0 "' });
  });

  it("checks method", () => {
    expectInvalid({ jsonrpc: "2.0", id: 1 }, 1, { pointer: "/method", expected: "a non-empty string", got: "missing" });
    expectInvalid({ jsonrpc: "2.0", id: 1, method: "" }, 1, { pointer: "/method", expected: "a non-empty string", got: '""' });
    expectInvalid({ jsonrpc: "2.0", id: 1, method: 5 }, 1, { pointer: "/method", expected: "a non-empty string", got: "5" });
    expectInvalid({ jsonrpc: "2.0", id: 1, method: null }, 1, { pointer: "/method", expected: "a non-empty string", got: "null" });
  });

  it("checks params", () => {
    for (const params of [{}, [], [1, 2], { a: null }]) expect(checkRequestEnvelope({ jsonrpc: "2.0", id: 1, method: "m", params }).ok).toBe(true);
    expectInvalid({ jsonrpc: "2.0", id: 1, method: "m", params: "x" }, 1, { pointer: "/params", expected: "an object or an array", got: '"x"' });
    expectInvalid({ jsonrpc: "2.0", id: 1, method: "m", params: null }, 1, { pointer: "/params", expected: "an object or an array", got: "null" });
    expectInvalid({ jsonrpc: "2.0", id: 1, method: "m", params: true }, 1, { pointer: "/params", expected: "an object or an array", got: "true" });
  });

  it("refuses anything but an object, batches included, with id null", () => {
    expectInvalid([], null, { pointer: "", expected: "an object", got: "an array" });
    expectInvalid([{ jsonrpc: "2.0", id: 1, method: "m" }], null, { pointer: "", expected: "an object", got: "an array" });
    expectInvalid(null, null, { pointer: "", expected: "an object", got: "null" });
    expectInvalid("req", null, { pointer: "", expected: "an object", got: '"req"' });
    expectInvalid(undefined, null, { pointer: "", expected: "an object", got: "missing" });
  });

  it("shortens a long value in the error", () => {
    const result = checkRequestEnvelope({ jsonrpc: "x".repeat(1000), id: 1, method: "m" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect((result.error.data as { got: string }).got).toHaveLength(60);
  });

  it("writes a readable message", () => {
    const result = checkRequestEnvelope({ jsonrpc: "1.0", id: 1, method: "m" });
    expect(result.ok ? "" : result.error.message).toBe('Invalid Request: /jsonrpc: expected "2.0", got "1.0"');
  });

  it("ignores inherited members", () => {
    const proto = { jsonrpc: "2.0", method: "m", id: 1 };
    expectInvalid(Object.create(proto) as unknown, null, { pointer: "/jsonrpc", expected: '"2.0"', got: "missing" });
  });

  it("drops a smuggled __proto__ before the check sees it", () => {
    const result = checkText('{"jsonrpc":"2.0","id":1,"method":"m","params":{"__proto__":{"isAdmin":true}}}');
    expect(result.ok).toBe(true);
    if (result.ok) expect({ ...(result.request.params as object) }).toEqual({});
  });
});

describe("response constructors", () => {
  it("builds success and failure envelopes", () => {
    expect(success(0, null)).toEqual({ jsonrpc: "2.0", id: 0, result: null });
    expect(failure(null, jsonRpcError(JSON_RPC_ERROR.parseError, "Parse error"))).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error" },
    });
  });

  it("leaves data out of an error when undefined, keeps it otherwise", () => {
    expect(Object.keys(jsonRpcError(-32601, "Method not found"))).toEqual(["code", "message"]);
    expect(jsonRpcError(-32602, "Invalid params", null)).toEqual({ code: -32602, message: "Invalid params", data: null });
    expect(jsonRpcError(-32001, "Task not found", { taskId: "t" })).toEqual({ code: -32001, message: "Task not found", data: { taskId: "t" } });
  });

  it("has the reserved codes", () => {
    expect(JSON_RPC_ERROR).toEqual({ parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internalError: -32603 });
  });
});

describe("isJsonRpcResponse", () => {
  it.each<[string, unknown]>([
    ["a success", { jsonrpc: "2.0", id: 1, result: { a: 1 } }],
    ["a null result", { jsonrpc: "2.0", id: "x", result: null }],
    ["id 0", { jsonrpc: "2.0", id: 0, result: 0 }],
    ["a failure with id null", { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }],
    ["a failure with data", { jsonrpc: "2.0", id: 1, error: { code: -32001, message: "x", data: [1] } }],
  ])("accepts %s", (_, value) => {
    expect(isJsonRpcResponse(value)).toBe(true);
  });

  it.each<[string, unknown]>([
    ["null", null],
    ["an array", [{ jsonrpc: "2.0", id: 1, result: 1 }]],
    ["a wrong version", { jsonrpc: "1.0", id: 1, result: 1 }],
    ["a missing id", { jsonrpc: "2.0", result: 1 }],
    ["an object id", { jsonrpc: "2.0", id: {}, result: 1 }],
    ["a boolean id", { jsonrpc: "2.0", id: true, result: 1 }],
    ["neither result nor error", { jsonrpc: "2.0", id: 1 }],
    ["both result and error", { jsonrpc: "2.0", id: 1, result: 1, error: { code: 1, message: "m" } }],
    ["a non-integer code", { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "m" } }],
    ["a string code", { jsonrpc: "2.0", id: 1, error: { code: "-32600", message: "m" } }],
    ["a missing message", { jsonrpc: "2.0", id: 1, error: { code: -32600 } }],
    ["an error that is a string", { jsonrpc: "2.0", id: 1, error: "boom" }],
    ["an error that is an array", { jsonrpc: "2.0", id: 1, error: [] }],
  ])("refuses %s", (_, value) => {
    expect(isJsonRpcResponse(value)).toBe(false);
  });

  it("accepts what success and failure build", () => {
    expect(isJsonRpcResponse(success(1, "ok"))).toBe(true);
    expect(isJsonRpcResponse(failure(1, jsonRpcError(-32603, "Internal error")))).toBe(true);
  });
});

describe("numericIdSources / stringifyResponse (JSON-RPC 2.0 §5: the id echoed as sent)", () => {
  it("finds the top-level id's source text, not a nested one", async () => {
    const { numericIdSources } = await import("../../../src/runtime/wire/jsonrpc.js");
    expect(numericIdSources('{"params":{"id":1},"id":9007199254740993}')).toEqual(["9007199254740993"]);
    expect(numericIdSources('{"id":"x"}')).toEqual([]);
    expect(numericIdSources('[1, {"id": -1e400}, {"a":[{"id":3}]}, {"id" : 12345678901234567890}]')).toEqual([undefined, "-1e400", undefined, "12345678901234567890"]);
    expect(numericIdSources('{"k":"\\"id\\":5","id":7}')).toEqual(["7"]);
  });
  it("reads member names as JSON does: escapes decoded, whitespace of any JSON kind before the colon", async () => {
    const { numericIdSources } = await import("../../../src/runtime/wire/jsonrpc.js");
    expect(numericIdSources('{"\\u0069d":42}')).toEqual(["42"]);
    expect(numericIdSources('{"i\\u0064" \t\r\n: 7.5e+3}')).toEqual(["7.5e+3"]);
    expect(numericIdSources('{"idx":1,"ids":[2],"Id":3,"id ":4,"":5}')).toEqual([]);
    expect(numericIdSources('{"id":1,"id":-0}')).toEqual(["-0"]); // the last duplicate, as JSON.parse keeps
    expect(numericIdSources('{"id":"1","params":{"text":"{\\"id\\":2}"}}')).toEqual([]);
    // Every case gives the id JSON.parse reads, as text.
    for (const text of ['{"\\u0069d":42}', '{"id":1,"id":-0}', '[{"id":1e2},{"id":-3.25}]']) {
      const parsed = JSON.parse(text) as unknown;
      const values = (Array.isArray(parsed) ? parsed : [parsed]).map((item) => (item as { id: number }).id);
      expect(numericIdSources(text).map(Number)).toEqual(values);
    }
  });
  it("writes a numeric id from its source text", async () => {
    const { stringifyResponse, success, failure } = await import("../../../src/runtime/wire/jsonrpc.js");
    expect(stringifyResponse(success(9007199254740992, { a: 1 }), "9007199254740993")).toBe('{"jsonrpc":"2.0","id":9007199254740993,"result":{"a":1}}');
    expect(stringifyResponse(failure(null, { code: 1, message: "m" }), "5")).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}');
  });
});
