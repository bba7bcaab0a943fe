import { describe, expect, it } from "vitest";
import { CompatMappingError, VersionConverter, type Loss, type Plan, type VersionMapping } from "../../src/runtime/compat/converter.js";

/**
 * The mapping interpreter (src/runtime/compat/converter.ts) on a small hand-written mapping, one rule kind per test:
 * it must follow the data and nothing else, and report every loss.
 */

const object = (source: string, target: string, rest: Partial<Extract<Plan, { kind: "object" }>>): Plan => ({
  kind: "object",
  source,
  target,
  set: {},
  fields: [],
  ignore: [],
  required: [],
  ...rest,
});

const plans: Record<string, Plan> = {
  Thing: object("Old", "New", {
    set: { kind: "thing" },
    fields: [
      { from: "name", to: "title" },
      { from: "blocking", to: "returnImmediately", transform: { op: "not" } },
      { from: "state", to: "state", convert: { plan: "State" } },
      { from: "items", to: "items", convert: { array: { plan: "Item" } } },
      { from: "config.url", to: "url" },
      { from: "schemes", to: "scheme", transform: { op: "first" } },
      { from: "configId", to: "id", orFrom: "taskId" },
      { from: "taskId", to: "taskId" },
      { from: "state", to: "final", transform: { op: "in", values: ["done"] } },
    ],
    ignore: ["tag"],
    required: ["title", "must"],
  }),
  State: { kind: "enum", source: "OldState", target: "NewState", values: { done: "STATE_DONE", busy: "STATE_BUSY" } },
  Item: {
    kind: "union",
    source: "OldItem",
    target: "NewItem",
    members: [
      { when: [{ path: "kind", equals: "text" }], plan: "TextItem" },
      { when: [{ path: "kind", equals: "file" }, { path: "file.uri", present: true }], plan: "UriItem" },
    ],
  },
  TextItem: object("OldItem (text)", "NewItem (text)", { fields: [{ from: "text", to: "text" }], ignore: ["kind"] }),
  UriItem: object("OldItem (uri)", "NewItem (url)", { fields: [{ from: "file.uri", to: "url" }, { from: "file.name", to: "filename" }], ignore: ["kind"] }),
  Wrap: object("Thing", "{ thing }", { fields: [{ from: "", to: "thing", convert: { plan: "Thing" } }] }),
  List: object("Item[]", "{ items }", { fields: [{ from: "", to: "items", convert: { array: { copy: true } } }] }),
};

const down: Record<string, Plan> = {
  Unwrap: object("{ thing }", "Thing", { fields: [{ from: "thing", to: "", convert: { copy: true } }] }),
  Unlist: object("{ items }", "Item[]", { fields: [{ from: "items", to: "", convert: { array: { copy: true } }, absent: [] }] }),
  Error: object("Error", "Error", {
    fields: [
      { from: "code", to: "code" },
      { from: "data", to: "data", transform: { op: "fromDetails", type: "T" } },
    ],
  }),
  Data: object("Part", "DataPart", { fields: [{ from: "data", to: "data", transform: { op: "object", property: "value" } }] }),
  ListOf: object("X", "Y", { fields: [{ from: "scheme", to: "schemes", transform: { op: "list" } }] }),
};

const mapping: VersionMapping = {
  primary: "9.0",
  compat: "8.0",
  methods: [
    {
      role: "send",
      compat: "thing/send",
      primary: "SendThing",
      streaming: false,
      params: { toPrimary: { plan: "Thing" }, toCompat: { plan: "Unwrap" } },
      result: { toPrimary: { value: {} }, toCompat: { value: null } },
    },
    {
      role: "extendedCard",
      compat: "card/get",
      primary: "GetCard",
      streaming: false,
      params: { toPrimary: { value: {} }, toCompat: { omit: true } },
      result: { toPrimary: { hook: "card" }, toCompat: { hook: "card" } },
    },
  ],
  primaryOnly: [],
  compatOnly: [],
  errorCodesOnly: { primary: [], compat: [] },
  error: {
    toPrimary: { plan: "ErrorUp" },
    toCompat: { plan: "Error" },
  },
  plans: {
    toPrimary: { ...plans, ErrorUp: object("Error", "Error", { fields: [{ from: "code", to: "code" }, { from: "data", to: "data", transform: { op: "toDetails", type: "T" } }] }) },
    toCompat: down,
  },
  lossy: [],
};

function converter(hooks?: Record<string, (value: unknown) => unknown>): { c: VersionConverter; losses: Loss[] } {
  const losses: Loss[] = [];
  return { c: new VersionConverter(mapping, { onLoss: (l) => losses.push(l), ...(hooks ? { hooks } : {}) }), losses };
}

describe("VersionConverter", () => {
  it("renames, inverts, sets constants, converts enums, arrays, unions and dotted paths", () => {
    const { c, losses } = converter();
    const out = c.convert({ plan: "Thing" }, "toPrimary", {
      tag: "old",
      name: "n",
      blocking: true,
      state: "done",
      items: [{ kind: "text", text: "hi" }, { kind: "file", file: { uri: "u", name: "f" } }],
      config: { url: "https://x" },
      schemes: ["Bearer"],
      configId: "c1",
      taskId: "t1",
      must: 1,
    });
    expect(out).toEqual({
      kind: "thing",
      title: "n",
      returnImmediately: false,
      state: "STATE_DONE",
      items: [{ text: "hi" }, { url: "u", filename: "f" }],
      url: "https://x",
      scheme: "Bearer",
      id: "c1",
      taskId: "t1",
      final: true,
    });
    // `must` has no rule: reported, and the target's required `must` is reported missing.
    expect(losses.map((l) => [l.reason, l.field, l.pointer])).toEqual([
      ["no-field", "must", "/must"],
      ["missing", "must", ""],
    ]);
  });

  it("reports what it cannot carry: a second list item, an unknown enum value, an unmatched union member, a defaulted field", () => {
    const { c, losses } = converter();
    const out = c.convert({ plan: "Thing" }, "toPrimary", {
      name: "n",
      must: 1,
      state: "weird",
      schemes: ["Bearer", "Basic"],
      taskId: "t1",
      items: [{ kind: "file", file: { bytes: "AAAA" } }],
      config: { url: "u", extra: 1 },
    });
    expect(out).toMatchObject({ state: "weird", scheme: "Bearer", id: "t1", items: [{ kind: "file", file: { bytes: "AAAA" } }], final: false });
    expect(losses.map((l) => `${l.reason} ${l.source} ${l.field} ${l.pointer}`).sort()).toEqual(
      [
        'value OldState "weird" /state',
        "value OldItem  /items/0",
        "value Old schemes /schemes",
        "defaulted Old configId /configId",
        "no-field Old config.extra /config/extra",
        "missing Old must ",
        "no-field Old must /must",
      ].sort(),
    );
  });

  it("wraps and unwraps whole values, lists included; an absent list is the rule's `absent` value", () => {
    const { c } = converter();
    expect(c.convert({ plan: "Wrap" }, "toPrimary", { name: "n", must: 1 })).toEqual({ thing: { kind: "thing", title: "n" } });
    expect(c.convert({ plan: "List" }, "toPrimary", [1, 2])).toEqual({ items: [1, 2] });
    expect(c.convert({ plan: "Unwrap" }, "toCompat", { thing: { a: 1 } })).toEqual({ a: 1 });
    expect(c.convert({ plan: "Unlist" }, "toCompat", { items: [3] })).toEqual([3]);
    expect(c.convert({ plan: "Unlist" }, "toCompat", {})).toEqual([]);
  });

  it("constants, omissions and hooks; a hook missing leaves the value as it is", () => {
    const seen: unknown[] = [];
    const { c } = converter({ card: (v) => (seen.push(v), { converted: true }) });
    expect(c.result("thing/send", "toPrimary", null)).toEqual({});
    expect(c.result("SendThing", "toCompat", {})).toBeNull();
    expect(c.params("GetCard", "toCompat", { tenant: "x" })).toBeUndefined();
    expect(c.result("card/get", "toPrimary", { name: "a" })).toEqual({ converted: true });
    expect(seen).toEqual([{ name: "a" }]);
    expect(converter().c.result("card/get", "toCompat", { name: "a" })).toEqual({ name: "a" });
  });

  it("error data: any value ↔ one detail of the given type; other detail lists stay lists", () => {
    const { c } = converter();
    const up = c.error("toPrimary", { code: -1, data: { reason: "x" } });
    expect(up).toEqual({ code: -1, data: [{ "@type": "T", value: { reason: "x" } }] });
    expect(c.error("toCompat", up)).toEqual({ code: -1, data: { reason: "x" } });
    const details = [{ "@type": "google.rpc.ErrorInfo", reason: "R" }];
    expect(c.error("toCompat", { code: -1, data: details })).toEqual({ code: -1, data: details });
  });

  it("a value the target holds only as an object is wrapped and reported; a single value becomes a list", () => {
    const { c, losses } = converter();
    expect(c.convert({ plan: "Data" }, "toCompat", { data: { a: 1 } })).toEqual({ data: { a: 1 } });
    expect(losses).toEqual([]);
    expect(c.convert({ plan: "Data" }, "toCompat", { data: [1] })).toEqual({ data: { value: [1] } });
    expect(losses.map((l) => l.reason)).toEqual(["value"]);
    expect(c.convert({ plan: "ListOf" }, "toCompat", { scheme: "Bearer" })).toEqual({ schemes: ["Bearer"] });
  });

  it("a method or plan the mapping does not have is a clear error", () => {
    const { c } = converter();
    expect(() => c.params("tasks/nope", "toPrimary", {})).toThrow(CompatMappingError);
    expect(() => c.params("tasks/nope", "toPrimary", {})).toThrow(/no method "tasks\/nope"/);
    expect(() => c.convert({ plan: "Nope" }, "toPrimary", {})).toThrow(/no plan "Nope"/);
    expect(c.method("SendThing")?.compat).toBe("thing/send");
  });
});

describe("VersionConverter on any input (the derived 0.3.0 ↔ 1.0.1 mapping)", () => {
  it("never throws and never changes a prototype, whatever JSON it is given", async () => {
    const fc = (await import("fast-check")).default;
    const { derived } = await import("../support/compat/mapping.js");
    const { mapping: real } = derived();
    const c = new VersionConverter(real);
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(...real.methods), fc.constantFrom("toPrimary" as const, "toCompat" as const), (value, m, direction) => {
        const name = direction === "toPrimary" ? m.compat : m.primary;
        for (const out of [c.params(name, direction, value), c.result(name, direction, value), c.error(direction, value)]) {
          if (out !== null && typeof out === "object" && !Array.isArray(out)) expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        }
      }),
      { seed: 7, numRuns: 2000 },
    );
    const hostile = JSON.parse('{"task": {"__proto__": {"polluted": true}, "id": "t"}}') as unknown;
    const out = c.result("SendMessage", "toCompat", hostile) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
