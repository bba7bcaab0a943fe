import { describe, expect, it } from "vitest";
import { check, createValidator, formatIssues, toIssues, type RawValidationError } from "../src/runtime/validation.js";
import { generatedValidators } from "./helpers.js";

const err = (instancePath: string, keyword: string, params: Record<string, unknown>, schemaPath = "#/x"): RawValidationError => ({
  instancePath,
  schemaPath,
  keyword,
  params,
});

describe("validation runtime: Ajv errors → stable issues", () => {
  it("describes each kind of error with pointer, expected and got", () => {
    const data = { a: 5, b: "bot", c: "1.0", obj: { "x/y": 1 } };
    expect(
      toIssues(
        [
          err("", "required", { missingProperty: "parts" }),
          err("/a", "type", { type: "string" }),
          err("/b", "enum", { allowedValues: ["agent", "user"] }),
          err("/c", "const", { allowedValue: "2.0" }),
          err("/obj", "additionalProperties", { additionalProperty: "x/y" }),
        ],
        data,
      ),
    ).toEqual([
      { pointer: "/parts", expected: 'a property "parts"', got: "missing", keyword: "required", message: '/parts: required property "parts" is missing' },
      { pointer: "/a", expected: "string", got: "integer", keyword: "type", message: "/a: expected string, got integer" },
      { pointer: "/b", expected: 'one of "agent", "user"', got: '"bot"', keyword: "enum", message: '/b: expected one of "agent", "user", got "bot"' },
      { pointer: "/c", expected: '"2.0"', got: '"1.0"', keyword: "const", message: '/c: expected "2.0", got "1.0"' },
      { pointer: "/obj/x~1y", expected: "no such property", got: "present", keyword: "additionalProperties", message: '/obj/x~1y: property "x/y" is not allowed' },
    ]);
  });

  it("drops if/then bookkeeping and folds a union whose branches all fail on type", () => {
    const issues = toIssues(
      [
        err("/id", "type", { type: "string" }, "#/anyOf/0/type"),
        err("/id", "type", { type: "integer" }, "#/anyOf/1/type"),
        err("/id", "anyOf", {}, "#/anyOf"),
        err("", "if", { failingKeyword: "then" }),
      ],
      { id: true },
    );
    expect(issues.map((i) => i.message)).toEqual(["/id: expected string or integer, got boolean"]);
  });

  it("folds a union whose branches each miss a different marker property into one issue", () => {
    const issues = toIssues(
      [err("/file", "required", { missingProperty: "bytes" }), err("/file", "required", { missingProperty: "uri" }), err("/file", "anyOf", {})],
      { file: {} },
    );
    expect(issues).toEqual([
      { pointer: "/file", expected: 'a property "bytes" or "uri"', got: "neither", keyword: "requiredOneOf", message: '/file: must have a property "bytes" or "uri"' },
    ]);
  });

  it("keeps the branch that got furthest into the value when branches disagree", () => {
    const issues = toIssues(
      [err("", "required", { missingProperty: "error" }), err("/result/status/state", "enum", { allowedValues: ["working"] }), err("", "anyOf", {})],
      { result: { status: { state: "nope" } } },
    );
    expect(issues.map((i) => i.message)).toEqual(['/result/status/state: expected one of "working", got "nope"']);
  });

  it("keeps errors that precede a union at other places", () => {
    const issues = toIssues(
      [err("/a", "type", { type: "string" }), err("/b", "type", { type: "string" }), err("/b", "type", { type: "integer" }), err("/b", "anyOf", {})],
      { a: 1, b: null },
    );
    expect(issues.map((i) => i.message)).toEqual(["/a: expected string, got integer", "/b: expected string or integer, got null"]);
  });

  it("wraps a raw validator as a guard with errors of the last call, and check()", () => {
    const raw = Object.assign((data: unknown) => {
      const ok = typeof data === "string";
      raw.errors = ok ? null : [err("", "type", { type: "string" })];
      return ok;
    }, { errors: null as RawValidationError[] | null });
    const v = createValidator<string>("Text", raw);
    expect(v.typeName).toBe("Text");
    expect(v(1)).toBe(false);
    expect(formatIssues(v.errors ?? [])).toBe("/: expected string, got integer");
    expect(v("x")).toBe(true);
    expect(v.errors).toBeNull();
    expect(check(v, 2)).toEqual({ ok: false, issues: [expect.objectContaining({ keyword: "type" })] });
    expect(check(v, "y")).toEqual({ ok: true, value: "y" });
  });
});

describe("generated validators: one precise error for one bad field", () => {
  const message = (over: Record<string, unknown>) => ({ kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }], ...over });

  it.each([
    ["a bad role", message({ role: "bot" }), ['/role: expected one of "agent", "user", got "bot"']],
    ["no parts", (({ parts: _p, ...m }) => m)(message({})), ['/parts: required property "parts" is missing']],
    ["a text part without text", message({ parts: [{ kind: "text" }] }), ['/parts/0/text: required property "text" is missing']],
    ["an unknown part kind", message({ parts: [{ kind: "audio" }] }), ['/parts/0/kind: expected one of "text", "file", "data", got "audio"']],
    ["a part without kind", message({ parts: [{ text: "x" }] }), ['/parts/0/kind: required property "kind" is missing']],
    ["a file part with neither bytes nor uri", message({ parts: [{ kind: "file", file: { name: "a" } }] }), ['/parts/0/file: must have a property "bytes" or "uri"']],
    ["a file uri of the wrong type", message({ parts: [{ kind: "file", file: { uri: 5 } }] }), ["/parts/0/file/uri: expected string, got integer"]],
    ["not an object", "hello", ["/: expected object, got string"]],
  ])("0.3.0 Message with %s", async (_name, value, messages) => {
    const v = (await generatedValidators("0.3.0")).Message!;
    expect(v(value)).toBe(false);
    expect(v.errors?.map((e) => e.message)).toEqual(messages);
  });

  it("0.1.0: parts tagged by `type`; responses hold exactly one of result and error", async () => {
    const v = await generatedValidators("0.1.0");
    expect(v.Message!({ role: "user", parts: [{ type: "text" }] })).toBe(false);
    expect(v.Message!.errors?.map((e) => e.message)).toEqual(['/parts/0/text: required property "text" is missing']);
    const task = { id: "t", status: { state: "working" } };
    expect(v.SendTaskResponse!({ jsonrpc: "2.0", id: 1, result: task })).toBe(true);
    expect(v.SendTaskResponse!({ jsonrpc: "2.0", id: 1, error: { code: -32001, message: "Task not found" } })).toBe(true);
    expect(v.SendTaskResponse!({ jsonrpc: "2.0", id: 1 })).toBe(false);
    expect(v.SendTaskResponse!.errors?.map((e) => e.message)).toEqual(['/: must have a property "result" or "error"']);
    expect(v.SendTaskResponse!({ jsonrpc: "2.0", id: 1, result: task, error: { code: 1, message: "x" } })).toBe(false);
  });

  it("0.3.0 request union: an unknown method lists the methods; a bad param names it", async () => {
    const v = (await generatedValidators("0.3.0")).A2ARequest!;
    expect(v({ jsonrpc: "2.0", id: 0, method: "message/sent", params: {} })).toBe(false);
    expect(v.errors).toHaveLength(1);
    expect(v.errors?.[0]?.message).toMatch(/^\/method: expected one of "message\/send", "message\/stream", .*"agent\/getAuthenticatedExtendedCard", got "message\/sent"$/);
    expect(v({ jsonrpc: "2.0", id: 0, method: "tasks/get", params: { id: "t", historyLength: "3" } })).toBe(false);
    expect(v.errors?.map((e) => e.message)).toEqual(["/params/historyLength: expected integer, got string"]);
  });
});
