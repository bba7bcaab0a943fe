// Without @grpc/grpc-js (an optional peer dependency of a2a-codegen), a card's gRPC interface is not checked:
// its checks are skipped saying what to install, and the other bindings are checked as usual (issue 32).
import { describe, expect, it, vi } from "vitest";
import { verifyAgent } from "../../src/verify/verify.js";

// The gRPC probe is what imports grpc-js: here its import fails as it does when the package is missing.
vi.mock("../../src/verify/grpc-probe.js", () => {
  throw new Error("Cannot find package '@grpc/grpc-js' imported from grpc-probe.js");
});

const card = {
  name: "agent",
  description: "an agent",
  version: "1.0.0",
  supportedInterfaces: [{ url: "127.0.0.1:50051", protocolBinding: "GRPC", protocolVersion: "1.0" }],
  capabilities: {},
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
};

describe("verify without @grpc/grpc-js", () => {
  it("skips the gRPC checks naming the package, and fails nothing for it", async () => {
    const report = await verifyAgent("http://agent.test", { fetch: async () => Response.json(card) });
    const grpc = report.results.filter((r) => r.scope === "GRPC");
    expect(grpc.length).toBeGreaterThan(0);
    expect(grpc.every((r) => r.outcome === "skip" && r.detail.includes("install it to check the gRPC interface") && r.detail.includes("@grpc/grpc-js"))).toBe(true);
    expect(report.results.find((r) => r.id === "card.schema")?.outcome).toBe("pass");
  });
});
