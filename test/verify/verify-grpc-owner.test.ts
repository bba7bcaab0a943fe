// `a2a-codegen verify` over gRPC and with two credentials (issue 32): the project's own 1.0.1 agent served on
// 127.0.0.1 over JSON-RPC and HTTP+JSON (node:http) and gRPC (serveGrpc on the same core), its card declaring
// a bearer scheme whose tokens are two callers. Every MUST check passes on the three bindings, owner scoping
// included (1.0.1 §13.1); an agent whose tasks are not scoped fails the owner checks on every binding; one
// credential only reports them skipped with the reason; a gRPC binding that answers the wrong status fails
// at its check (§5.4, §10.6).
import { spawn } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveGrpc, type A2AServiceLike, type GrpcServerHandle } from "../../src/runtime/grpc/server.js";
import { verifyAgent, type VerifyReport } from "../../src/verify/verify.js";
import { renderJunit, renderTable } from "../../src/verify/report.js";
import { binding101 } from "../support/grpc/fake-service.js";
import { ROOT } from "../support/project.js";
import { modules, testCard, testExecutor } from "../support/servers.js";

type Json = Record<string, any>;
const TOKENS: Record<string, string> = { "token-alice": "alice", "token-bob": "bob" };

interface Agent {
  url: string;
  close(): Promise<void>;
}

/**
 * The 1.0.1 agent on three bindings. `scoped: false` is the defect of an agent whose verifier names no
 * principal: every caller shares one scope. `grpcService` may wrap the gRPC side's service (a defect there).
 */
async function startAgent(options: { scoped: boolean; grpcService?: (service: A2AServiceLike) => A2AServiceLike }): Promise<Agent> {
  const m = await modules("1.0.1");
  const card = testCard("1.0.1", { rest: true, auth: { verify: () => true } });
  (card["supportedInterfaces"] as Json[]).push({ url: "127.0.0.1:0", protocolBinding: "GRPC", protocolVersion: "1.0" });
  const core = m.core.createA2AServer({
    card: card as never,
    executor: testExecutor() as never,
    rpcPath: "/a2a",
    transports: ["GRPC"],
    heartbeatMs: 0,
    logger: { error: () => undefined, warn: () => undefined },
    auth: { verify: (credential: { value: string }) => (TOKENS[credential.value] === undefined ? false : options.scoped ? { allow: true, principal: TOKENS[credential.value] } : true) } as never,
  }) as unknown as { service: A2AServiceLike & { card: object }; close(): Promise<void> };
  const server: Server = m.node.createNodeServer(core as never);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const target = options.grpcService ? { service: Object.assign(options.grpcService(core.service), { card: core.service.card }) } : core;
  const grpc: GrpcServerHandle = await serveGrpc(await binding101(), target as never);
  for (const entry of card["supportedInterfaces"] as Json[]) entry["url"] = entry["protocolBinding"] === "GRPC" ? `127.0.0.1:${grpc.port}` : `${base}/a2a`;
  return {
    url: base,
    close: async () => {
      await grpc.close(100);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}

const outcome = (report: VerifyReport, id: string) => report.results.find((r) => r.id === id);
const agents: Agent[] = [];
afterAll(async () => {
  for (const agent of agents) await agent.close();
});
async function agent(options: Parameters<typeof startAgent>[0]): Promise<Agent> {
  const started = await startAgent(options);
  agents.push(started);
  return started;
}

describe("verify over gRPC, with two credentials", () => {
  let scoped: Agent;
  beforeAll(async () => {
    scoped = await agent({ scoped: true });
  }, 60_000);

  it("the project's agent: every MUST check passes on JSON-RPC, HTTP+JSON and gRPC, owner scoping included", async () => {
    const report = await verifyAgent(scoped.url, { auth: ["token-alice", "token-bob"] });
    expect(report.results.filter((r) => r.outcome !== "pass" && r.level === "MUST"), renderTable(report)).toEqual([]);
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      for (const check of ["send", "get", "cancel", "stream", "task-not-found", "cancel-not-found", "subscribe-not-found", "version", "owner-get", "owner-cancel", "owner-subscribe"]) {
        expect(outcome(report, `${binding}.${check}`)?.outcome, `${binding}.${check}`).toBe("pass");
      }
    }
    expect(outcome(report, "grpc.invalid-argument")?.outcome).toBe("pass");
    expect(report.version).toBe("1.0.1");
  });

  it("--binding grpc and --level MUST keep the gRPC checks only; JUnit has their suite", async () => {
    const report = await verifyAgent(scoped.url, { auth: ["token-alice"], bindings: ["GRPC"], levels: ["MUST"] });
    expect(report.results.every((r) => r.scope === "card" || r.scope === "GRPC")).toBe(true);
    expect(report.results.every((r) => r.level === "MUST")).toBe(true);
    expect(renderJunit(report)).toContain('<testsuite name="a2a-codegen verify GRPC"');
    expect(renderJunit(report)).toContain("grpc.task-not-found [MUST §5.4, §10.6]");
  });

  it("one credential: the owner checks are skipped, saying a second one is needed", async () => {
    const report = await verifyAgent(scoped.url, { auth: ["token-alice"] });
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      expect(outcome(report, `${binding}.owner-get`)).toMatchObject({ outcome: "skip", detail: expect.stringContaining("--auth twice") });
    }
    expect(report.failed).toBe(false);
  });

  it("no credential for an agent that asks one: the calls fail (401/UNAUTHENTICATED), nothing crashes", async () => {
    const report = await verifyAgent(scoped.url, { bindings: ["GRPC", "JSONRPC"] });
    expect(outcome(report, "grpc.send")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("UNAUTHENTICATED") });
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("fail");
    expect(report.failed).toBe(true);
  });

  it("from the command line (dist/bin.cjs, run outside the project): the gRPC checks find the bundled proto and pass", async () => {
    const out = await new Promise<{ code: number | null; text: string }>((resolve) => {
      const child = spawn(process.execPath, [join(ROOT, "dist", "bin.cjs"), "verify", scoped.url, "--binding", "grpc", "--auth", "env:VERIFY_TOKEN_A", "--json"], {
        cwd: tmpdir(),
        env: { ...process.env, VERIFY_TOKEN_A: "token-alice" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (d) => (text += d));
      child.stderr.on("data", (d) => (text += d));
      child.on("close", (code) => resolve({ code, text }));
    });
    expect(out.code, out.text).toBe(0);
    const report = JSON.parse(out.text) as VerifyReport;
    // Every gRPC check but the owner ones (one credential given) passes.
    expect(report.results.filter((r) => r.scope === "GRPC" && r.outcome !== "pass").map((r) => r.id)).toEqual(["grpc.owner-get", "grpc.owner-cancel", "grpc.owner-subscribe"]);
    expect(out.text).not.toContain("token-alice");
  });

  it("a credential as `Header: value` is sent as that header", async () => {
    const report = await verifyAgent(scoped.url, { auth: ["Authorization: Bearer token-alice"], bindings: ["HTTP+JSON"] });
    expect(outcome(report, "rest.send")?.outcome).toBe("pass");
  });
});

describe("verify against broken agents: gRPC and owner-scoping defects at their checks", () => {
  it("tasks not scoped to their creator (§13.1): the owner checks fail on every binding", async () => {
    const unscoped = await agent({ scoped: false });
    const report = await verifyAgent(unscoped.url, { auth: ["token-alice", "token-bob"] });
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      expect(outcome(report, `${binding}.owner-get`), renderTable(report)).toMatchObject({ outcome: "fail", detail: expect.stringContaining("with credential B answered") });
      expect(outcome(report, `${binding}.owner-cancel`)?.outcome).toBe("fail");
      expect(outcome(report, `${binding}.owner-subscribe`)?.outcome).toBe("fail");
      expect(outcome(report, `${binding}.send`)?.outcome).toBe("pass");
    }
    expect(report.failed).toBe(true);
  });

  it("gRPC: an unknown task answered INTERNAL without ErrorInfo, a bad request answered OK (§5.4, §10.6)", async () => {
    const broken = await agent({
      scoped: true,
      grpcService: (service) => ({
        requiresAuth: service.requiresAuth,
        async call(method, params, ctx) {
          if (method === "SendMessage" && (params as Json)["message"] === undefined) return { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "ok" }] } };
          try {
            return await service.call(method, params, ctx);
          } catch (error) {
            if ((error as { code?: number }).code === -32001) throw Object.assign(new Error("oops"), { code: -32603 });
            throw error;
          }
        },
        stream: (method, params, ctx) => service.stream(method, params, ctx),
      }),
    });
    const report = await verifyAgent(broken.url, { auth: ["token-alice"], bindings: ["GRPC"] });
    expect(outcome(report, "grpc.task-not-found")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("INTERNAL (oops), not NOT_FOUND") });
    expect(outcome(report, "grpc.invalid-argument")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("answered OK") });
    expect(outcome(report, "grpc.cancel-not-found")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("INTERNAL (oops), not NOT_FOUND") });
    // The stream side was left as it was: subscribing to an unknown task still answers NOT_FOUND.
    expect(outcome(report, "grpc.subscribe-not-found")?.outcome).toBe("pass");
    expect(outcome(report, "grpc.send")?.outcome).toBe("pass");
    expect(outcome(report, "grpc.stream")?.outcome).toBe("pass");
  });
});
