// ProtocolShapes.stamp copies a message (Object.assign for speed): the copy is a plain object whatever
// keys the message has; an own "__proto__" key (JSON.parse makes one) stays a key, never a prototype.
import { describe, expect, it } from "vitest";
import { type ProtocolProfile } from "../../src/runtime/profile.js";
import { ProtocolShapes } from "../../src/runtime/protocol-shapes.js";

const shapes = new ProtocolShapes({
  objects: { Message: { properties: ["kind", "role", "parts", "messageId", "taskId", "contextId"], required: [], consts: { kind: "message" } } },
  contextField: "contextId",
} as unknown as ProtocolProfile);

describe("stamp", () => {
  it("copies the message with the ids, in order, without changing it", () => {
    const message = JSON.parse('{"kind":"message","role":"user","messageId":"m","parts":[]}') as Record<string, unknown>;
    const stamped = shapes.stamp(message, "t", "c");
    expect(Object.keys(stamped)).toEqual(["kind", "role", "messageId", "parts", "taskId", "contextId"]);
    expect(stamped).toMatchObject({ taskId: "t", contextId: "c" });
    expect(message).not.toHaveProperty("taskId");
    // A taskId the message has already keeps its place and takes the new value.
    expect(Object.keys(shapes.stamp({ taskId: "old", role: "user" }, "t", undefined))).toEqual(["taskId", "role"]);
  });

  it('keeps an own "__proto__" key as a key, never as the copy\'s prototype', () => {
    const message = JSON.parse('{"role":"user","__proto__":{"polluted":true}}') as Record<string, unknown>;
    const stamped = shapes.stamp(message, "t", "c");
    expect(Object.getPrototypeOf(stamped)).toBe(Object.prototype);
    expect((stamped as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(stamped, "__proto__")).toBe(true);
  });
});
