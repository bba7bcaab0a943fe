import { describe, expect, it } from "vitest";
import { diffProtocols } from "../src/diff/diff.js";
import { bundledIR } from "../src/load/protocol.js";
import { hintsFor } from "../src/regenerate.js";

/** The hints a regeneration adds under a type error in the user's code: what the spec change renamed or removed. */
describe("regeneration hints", () => {
  const diff = diffProtocols(bundledIR("0.1.0"), bundledIR("0.2.0"));

  it("names the new name of a renamed type or method", () => {
    expect(hintsFor(`Module '"../generated/models.js"' has no exported member 'TaskSendParams'.`, diff)).toEqual(["TaskSendParams is now MessageSendParams"]);
    expect(hintsFor(`Argument of type '"tasks/send"' is not assignable to parameter of type 'A2AMethodName'.`, diff)).toEqual(["tasks/send is now message/send"]);
  });

  it("says what no longer exists, and which enum values are gone", () => {
    expect(hintsFor(`Module has no exported member 'FileContent'.`, diff)).toEqual(["FileContent no longer exists"]);
    const states = diffProtocols(bundledIR("0.3.0"), bundledIR("1.0.1"));
    expect(hintsFor(`Type '"completed"' is not assignable to type 'TaskState'.`, states).join("\n")).toMatch(/TaskState no longer has .*"completed"/);
  });

  it("adds nothing to an error that names nothing the change touched", () => {
    expect(hintsFor(`Cannot find name 'myHelper'.`, diff)).toEqual([]);
    // A name inside another (SendTaskRequest is renamed; SendTaskRequestX is not it).
    expect(hintsFor(`Cannot find name 'SendTaskRequestX'.`, diff)).toEqual([]);
  });
});
