import { describe, expect, it } from "vitest";
import { check, checkLimits, createValidator, DEFAULT_VALIDATION_LIMITS, formatIssues, toIssues, type RawValidationError } from "../../src/runtime/validation.js";
import { generatedValidators } from "../support/project.js";

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

describe("deep and large values (issue 17, 10): validation answers, never throws, and bounds what it prints", () => {
  const nest = (depth: number, leaf: unknown = "x"): unknown => {
    let value = leaf;
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it("a value 10,000 levels deep gets one maxDepth issue naming where (JSON.stringify of it throws)", async () => {
    const deep = nest(10_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    const v = (await generatedValidators("1.0.1")).Message!;
    // Where the value is wrong (role is an enumeration), the issue used to print it whole: a RangeError.
    const message = { messageId: "m", role: deep, parts: [{ text: "hi" }] };
    expect(v(message)).toBe(false);
    expect(v.errors).toHaveLength(1);
    expect(v.errors?.[0]).toMatchObject({ keyword: "maxDepth", expected: "at most 100 levels of nesting", got: "deeper" });
    expect(v.errors?.[0]?.pointer).toBe("/role" + "/a".repeat(100));
    // And where it is allowed (metadata holds any object), it is refused before the validator recurses into it.
    expect(v({ messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }], metadata: deep })).toBe(false);
    expect(v.errors?.[0]?.pointer).toBe("/metadata" + "/a".repeat(100));
  });

  it("limits are configurable per validator, and checkLimits names the first place beyond them", () => {
    const raw = Object.assign(() => true, { errors: null });
    const shallow = createValidator<unknown>("Any", raw, { maxDepth: 2, maxNodes: 10 });
    expect(shallow({ a: { b: { c: 1 } } })).toBe(true); // objects 2 levels below the value
    expect(shallow({ a: { b: { c: {} } } })).toBe(false);
    expect(shallow.errors).toEqual([
      { pointer: "/a/b/c", expected: "at most 2 levels of nesting", got: "deeper", keyword: "maxDepth", message: "/a/b/c: nested deeper than 2 levels" },
    ]);
    expect(shallow([1, 2, 3, 4, 5, 6, 7, 8, 9])).toBe(true); // 10 values: the array and its 9 items
    expect(shallow([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toBe(false);
    expect(shallow.errors?.[0]).toMatchObject({ pointer: "/9", keyword: "maxNodes" });
    expect(checkLimits({ "a/b": [{ "~": {} }] }, { maxDepth: 2, maxNodes: 100 })).toMatchObject({ pointer: "/a~1b/0/~0" });
    // withLimits: the same validator with other limits, the original unchanged.
    const deeper = shallow.withLimits({ maxDepth: 3, maxNodes: 10 });
    expect(deeper({ a: { b: { c: {} } } })).toBe(true);
    expect(shallow({ a: { b: { c: {} } } })).toBe(false);
    expect([shallow.limits, deeper.limits, createValidator("Any", raw).limits]).toEqual([
      { maxDepth: 2, maxNodes: 10 },
      { maxDepth: 3, maxNodes: 10 },
      DEFAULT_VALIDATION_LIMITS,
    ]);
    expect(checkLimits(nest(101), DEFAULT_VALIDATION_LIMITS)).toBeNull(); // objects down to 100 levels below the value
    expect(checkLimits(nest(102), DEFAULT_VALIDATION_LIMITS)?.keyword).toBe("maxDepth");
  });

  it("checkLimits gives each value its own answer, whatever the calls before it (its work lists are kept between calls)", () => {
    const limits = { maxDepth: 3, maxNodes: 6 };
    // Stopped at the 7th value with values of its siblings still listed.
    expect(checkLimits({ a: [1, 2, 3], b: [4, 5, 6], c: { d: 7 } }, limits)?.keyword).toBe("maxNodes");
    expect(checkLimits({ a: 1 }, limits)).toBeNull();
    expect(checkLimits({ a: { b: { c: { d: {} } } }, e: [1] }, limits)).toMatchObject({ keyword: "maxDepth", pointer: "/a/b/c/d" });
    expect(checkLimits([[1], [2]], limits)).toBeNull();
    // A large value, then small ones: each counted alone.
    expect(checkLimits(Array.from({ length: 5000 }, (_, i) => ({ i })), { maxDepth: 3, maxNodes: 20_000 })).toBeNull();
    expect(checkLimits([1, 2, 3, 4, 5], limits)).toBeNull();
    expect(checkLimits([1, 2, 3, 4, 5, 6], limits)?.keyword).toBe("maxNodes");
  });

  it("a validator that overflows the stack anyway reports it as an issue", () => {
    const raw = Object.assign(
      (): boolean => {
        throw new RangeError("Maximum call stack size exceeded");
      },
      { errors: null },
    );
    const v = createValidator<unknown>("Recursive", raw);
    expect(v({})).toBe(false);
    expect(v.errors?.[0]).toMatchObject({ pointer: "", keyword: "maxDepth" });
  });

  it("issue messages show at most 60 characters of a value, however large or deep", () => {
    const big = "x".repeat(5_000_000);
    const issues = toIssues([err("/a", "const", { allowedValue: big }), err("/b", "enum", { allowedValues: [nest(10_000)] })], { a: nest(10_000), b: big });
    for (const issue of issues) expect(issue.message.length).toBeLessThan(200);
    expect(issues[0]?.expected).toBe(`"${"x".repeat(56)}...`);
    expect(issues[0]?.got).toMatch(/^\{"a":\{"a":.*\{\.\.\.\}\}/);
    expect(issues[1]?.got).toBe(`"${"x".repeat(56)}...`);
  });
});

describe("unions no tag tells apart check the shared envelope first (issue 17, 8)", () => {
  it("0.3.0 JSONRPCResponse with jsonrpc 1.0 and a valid Task: one issue, at /jsonrpc", async () => {
    const v = (await generatedValidators("0.3.0")).JSONRPCResponse!;
    const task = { kind: "task", id: "t", contextId: "c", status: { state: "completed" } };
    expect(v({ jsonrpc: "2.0", id: 1, result: task })).toBe(true);
    expect(v({ jsonrpc: "1.0", id: 1, result: task })).toBe(false);
    expect(v.errors).toEqual([{ pointer: "/jsonrpc", expected: '"2.0"', got: '"1.0"', keyword: "const", message: '/jsonrpc: expected "2.0", got "1.0"' }]);
    expect(v({ jsonrpc: "2.0", result: task })).toBe(false);
    expect(v.errors?.[0]?.message).toBe('/id: required property "id" is missing');
  });
});
