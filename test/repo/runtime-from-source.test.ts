/**
 * The test run imports the runtime from src/runtime (test/support/runtime-from-source.ts; issue 13 item
 * 5): a generated file's `../runtime/x.js` is the source module itself, so an edit of src/runtime is what
 * the server and client suites exercise. The copies in generated/ are the snapshot test's business.
 */
import { describe, expect, it } from "vitest";
import * as sourceShapes from "../../src/runtime/protocol-shapes.js";
import * as sourceServer from "../../src/runtime/http/server.js";
import * as generatedShapes from "../../generated/a2a-1.0.1/runtime/protocol-shapes.js";
import * as core from "../../generated/a2a-1.0.1/server/core.js";
import * as legacyCore from "../../generated/a2a-0.1.0/server/core.js";

describe("generated code under test runs the source runtime", () => {
  it("a generated runtime module is the src/runtime module", () => {
    expect(sourceShapes.ProtocolShapes).toBeTypeOf("function");
    expect(generatedShapes.ProtocolShapes).toBe(sourceShapes.ProtocolShapes);
  });

  it("the generated servers of every version build the source runtime's core", () => {
    expect(core.A2AServerCore).toBe(sourceServer.A2AServerCore);
    expect(legacyCore.A2AServerCore).toBe(sourceServer.A2AServerCore);
  });
});
