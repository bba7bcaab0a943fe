// `a2a-codegen verify` against the official SDK 1.x (@a2a-js/sdk 1.3.0, installed as `a2a-sdk-v1`), issue 32:
// a small agent built in this test with the SDK's own server — DefaultRequestHandler + InMemoryTaskStore
// and the SDK echo executor, served over JSON-RPC (jsonRpcHandler), HTTP+JSON (restHandler) and gRPC
// (grpcService on @grpc/grpc-js), on 127.0.0.1. verify must answer every check without crashing, and the
// SDK's known departures from 1.0.1 must be reported at their checks; docs/testing.md lists them.
import grpc from "@grpc/grpc-js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard } from "a2a-sdk-v1";
import { DefaultRequestHandler, InMemoryTaskStore } from "a2a-sdk-v1/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "a2a-sdk-v1/server/express";
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "a2a-sdk-v1/server/grpc";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyAgent, type VerifyReport } from "../../src/verify/verify.js";
import { renderTable } from "../../src/verify/report.js";
import { EchoExecutor } from "../support/sdk-agents/sdk-1.x.js";

let report: VerifyReport;
const outcome = (id: string) => report.results.find((r) => r.id === id);

interface SdkAgent {
  base: string;
  close(): Promise<void>;
}
const agents: SdkAgent[] = [];

/** The SDK agent on three bindings; `card` adds fields to its card (a security scheme). */
async function startSdkAgent(card: Record<string, unknown> = {}): Promise<SdkAgent> {
  const express = (await import("express")).default;
  const app = express();
  const http: Server = createServer(app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const grpcServer = new grpc.Server();
  const agentCard = AgentCard.fromJSON({
    name: "SDK Echo Agent",
    description: "The official SDK 1.x's server, echoing",
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "127.0.0.1:0", protocolBinding: "GRPC", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }],
    ...card,
  });
  const handler = new DefaultRequestHandler(agentCard, new InMemoryTaskStore(), new EchoExecutor());
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  grpcServer.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: GrpcUserBuilder.noAuthentication }));
  const port = await new Promise<number>((resolve, reject) => grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  (agentCard.supportedInterfaces[2] as { url: string }).url = `127.0.0.1:${port}`;
  const agent = {
    base,
    close: async () => {
      grpcServer.forceShutdown();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
  report = await verifyAgent((await startSdkAgent()).base);
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  for (const agent of agents) await agent.close();
});

describe("verify against an @a2a-js/sdk 1.3.0 agent on JSON-RPC, HTTP+JSON and gRPC", () => {
  it("answers every check of every binding, nothing crashes", () => {
    expect(report.version).toBe("1.0.1");
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      for (const check of ["send", "get", "cancel", "stream", "task-not-found", "version"]) expect(outcome(`${binding}.${check}`), `${binding}.${check}\n${renderTable(report)}`).toBeDefined();
    }
    // Skipped only where the card gives nothing to check: no security scheme, so no owners to tell apart.
    expect(report.results.filter((r) => r.outcome === "skip").every((r) => r.id.includes(".owner-"))).toBe(true);
  });

  it("the core methods pass on every binding", () => {
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      for (const check of ["send", "get", "cancel", "stream", "task-not-found", "cancel-not-found", "subscribe-not-found"]) expect(outcome(`${binding}.${check}`)?.outcome, `${binding}.${check}: ${outcome(`${binding}.${check}`)?.detail}`).toBe("pass");
    }
  });

  it("its known departure is reported at its check: an envelope without a method is -32602, not -32600 (docs/interop.md V6)", () => {
    expect(outcome("jsonrpc.invalid-request")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("code -32602, not -32600") });
    expect(report.results.filter((r) => r.outcome === "fail").map((r) => r.id), renderTable(report)).toEqual(["jsonrpc.invalid-request"]);
    expect(report.failed).toBe(true);
  });
});

describe("the same SDK agent with a bearer scheme on its card, checked with two credentials", () => {
  let secured: VerifyReport;
  beforeAll(async () => {
    const agent = await startSdkAgent({ securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] });
    secured = await verifyAgent(agent.base, { auth: ["token-a", "token-b"] });
  }, 60_000);

  it("the well-known card is not ProtoJSON with a oneof (docs/interop.md V9): card.schema fails, the rest still runs", () => {
    const schema = secured.results.find((r) => r.id === "card.schema");
    expect(schema, renderTable(secured)).toMatchObject({ outcome: "fail", detail: expect.stringContaining("/securitySchemes/bearer") });
    expect(secured.results.find((r) => r.id === "grpc.send")?.outcome).toBe("pass");
  });

  it("tasks are not scoped to callers (the card's scheme is not enforced, V8): the owner checks fail on every binding", () => {
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      expect(secured.results.find((r) => r.id === `${binding}.owner-get`), renderTable(secured)).toMatchObject({ outcome: "fail", detail: expect.stringContaining("with credential B answered") });
    }
  });
});
