/**
 * The overlay's `nonBlocking` fact (src/ir/overlay.ts): the send configuration's flag that makes a send
 * non-blocking and the value that says so, which the schema does not state (specification-1.0.1.md
 * §3.2.2: `return_immediately: true`; 0.3.0 §7.1.1: `blocking: false`). Bad input names the field.
 */
import { describe, expect, it } from "vitest";
import { parseOverlay } from "../../src/ir/overlay.js";

const base = { version: "9.9.9", wellKnownAgentCardPath: "/.well-known/agent-card.json" };

describe("parseOverlay: nonBlocking", () => {
  it("keeps { field, value }, and leaves it out when absent", () => {
    expect(parseOverlay({ ...base, nonBlocking: { field: "returnImmediately", value: true } }, "x.json").nonBlocking).toEqual({ field: "returnImmediately", value: true });
    expect("nonBlocking" in parseOverlay(base, "x.json")).toBe(false);
  });

  it("refuses a malformed fact with the pointer of the bad field", () => {
    expect(() => parseOverlay({ ...base, nonBlocking: "blocking" }, "x.json")).toThrow(expect.objectContaining({ pointer: "/nonBlocking" }));
    expect(() => parseOverlay({ ...base, nonBlocking: { field: "a/b", value: false } }, "x.json")).toThrow(expect.objectContaining({ pointer: "/nonBlocking/field" }));
    expect(() => parseOverlay({ ...base, nonBlocking: { field: "blocking", value: "false" } }, "x.json")).toThrow(expect.objectContaining({ pointer: "/nonBlocking/value" }));
  });
});
