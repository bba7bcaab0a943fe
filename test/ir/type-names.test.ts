/**
 * typeNameOf (src/ir/type-names.ts) is json-schema-to-typescript's naming rule, written in a few lines of
 * our own instead of importing the library's private `dist/src/utils.js` (issue 13 item 4): for every key
 * here, the name it gives is the name the library declares through its public `compile`.
 */
import { compile } from "json-schema-to-typescript";
import { describe, expect, it } from "vitest";
import { typeNameOf } from "../../src/ir/type-names.js";

const KEYS = ["Message", "message", "JSONRPCError", "OAuth2SecurityScheme", "Task_State", "task_state", "_private", "__proto", "a1b", "2fast", "with space", "kebab-case", "dollar$sign", "Crème", "x.y.z", "A2ARequest"];

async function libraryName(key: string): Promise<string> {
  const ts = await compile({ type: "object", properties: { value: { $ref: "#/definitions/k" } }, additionalProperties: false, definitions: { k: { type: "object", title: key, properties: { a: { type: "string" } }, additionalProperties: false } } }, "Root", { bannerComment: "", format: false });
  const declared = [...ts.matchAll(/^export interface ([^\s{]+)/gm)].map((m) => m[1]).filter((n) => n !== "Root");
  return declared[0] as string;
}

describe("typeNameOf", () => {
  it.each(KEYS)("%s: the name json-schema-to-typescript declares", async (key) => {
    expect(typeNameOf(key)).toBe(await libraryName(key));
  });

  it("keeps a definition name that is already a type name, and says what others become", () => {
    expect(typeNameOf("SendMessageRequest")).toBe("SendMessageRequest");
    expect(typeNameOf("task_state")).toBe("TaskState");
    expect(typeNameOf("a1b")).toBe("A1B");
    expect(typeNameOf("2fast")).toBe("Fast");
  });
});
