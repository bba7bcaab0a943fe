// `a2a-codegen verify` against the project's own generated agents on every adapter (node:http, Express,
// Fastify, Hono) on 127.0.0.1, 1.0.1 on JSON-RPC and HTTP+JSON and 0.3.0 on JSON-RPC (issue 32): no MUST
// check fails, the core methods pass. (gRPC: verify-grpc-owner.test.ts; the adapters do not serve it.)
import { describe, expect, it } from "vitest";
import { verifyAgent } from "../../src/verify/verify.js";
import { renderTable } from "../../src/verify/report.js";
import { FRAMEWORKS, startServer } from "../support/servers.js";

describe.each(FRAMEWORKS)("verify against the project's agent on %s", (framework) => {
  it("1.0.1 over JSON-RPC and HTTP+JSON: no MUST check fails", async () => {
    const agent = await startServer("1.0.1", framework, { rest: true });
    try {
      const report = await verifyAgent(agent.baseUrl);
      expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "fail"), renderTable(report)).toEqual([]);
      for (const id of ["jsonrpc.send", "jsonrpc.stream", "jsonrpc.version", "rest.send", "rest.stream", "rest.task-not-found", "rest.version"]) expect(report.results.find((r) => r.id === id)?.outcome, id).toBe("pass");
    } finally {
      await agent.close();
    }
  });

  it("0.3.0 over JSON-RPC: no MUST check fails", async () => {
    const agent = await startServer("0.3.0", framework);
    try {
      const report = await verifyAgent(agent.baseUrl);
      expect(report.version).toBe("0.3.0");
      expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "fail"), renderTable(report)).toEqual([]);
      expect(report.results.find((r) => r.id === "jsonrpc.stream")?.outcome).toBe("pass");
    } finally {
      await agent.close();
    }
  });
});
