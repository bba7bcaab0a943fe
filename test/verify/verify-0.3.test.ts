// `a2a-codegen verify` against 0.3 agents (issue 32): the checks come from the card's protocolVersion
// (0.3.0's method names, error codes and sections, specification-0.3.0.md). The project's own 0.3.0 agent
// (node:http adapter) passes every MUST check and, with two callers' tokens, owner scoping (§4.6: SHOULD);
// the official SDK 0.3 agent (@a2a-js/sdk 0.3.x) is checked without a crash; a broken 0.3 agent is
// reported at its checks; a 0.2 card is told apart, not checked with the wrong version's rules.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyAgent, type VerifyReport } from "../../src/verify/verify.js";
import { renderJunit, renderTable } from "../../src/verify/report.js";
import { startSdkServer } from "../support/sdk-agents/sdk-0.3.js";
import { startServer, type RunningServer } from "../support/servers.js";

const outcome = (report: VerifyReport, id: string) => report.results.find((r) => r.id === id);
const closers: Array<() => Promise<void>> = [];
beforeAll(() => {
  // The SDK logs the errors it answers (an unknown task) to the console.
  for (const level of ["error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(() => undefined);
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const close of closers) await close();
});
async function started<T extends { close(): Promise<void> }>(server: Promise<T>): Promise<T> {
  const running = await server;
  closers.push(() => running.close());
  return running;
}

describe("verify against the project's 0.3.0 agent", () => {
  it("checks it as 0.3.0 (its method names and sections): every MUST check passes", async () => {
    const agent: RunningServer = await started(startServer("0.3.0", "node"));
    const report = await verifyAgent(agent.baseUrl);
    expect(report.version).toBe("0.3.0");
    expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "fail"), renderTable(report)).toEqual([]);
    for (const id of ["card.schema", "card.bindings", "jsonrpc.send", "jsonrpc.get", "jsonrpc.cancel", "jsonrpc.stream", "jsonrpc.task-not-found", "jsonrpc.cancel-not-found", "jsonrpc.subscribe-not-found", "jsonrpc.parse-error", "jsonrpc.invalid-request", "jsonrpc.method-not-found", "jsonrpc.invalid-params"]) {
      expect(outcome(report, id)?.outcome, id).toBe("pass");
    }
    expect(report.results.every((r) => r.spec === "0.3.0")).toBe(true);
    expect(outcome(report, "jsonrpc.send")?.section).toBe("§7.1");
    // No 1.0-only checks: no version negotiation, no card caching headers, no HTTP+JSON or gRPC checks.
    expect(report.results.some((r) => r.id === "jsonrpc.version" || r.id.startsWith("rest.") || r.id.startsWith("grpc.") || r.id === "card.etag")).toBe(false);
    expect(renderJunit(report)).toContain("jsonrpc.send [MUST 0.3.0 §7.1]");
    expect(renderTable(report)).toContain("(the checks of A2A 0.3.0)");
  });

  it("with two callers' tokens, owner scoping (§4.6) passes; a shared scope fails it", async () => {
    const tokens: Record<string, string> = { "token-a": "alice", "token-b": "bob" };
    const scoped = await started(startServer("0.3.0", "node", { auth: { verify: (c) => (tokens[c.value] ? { allow: true, principal: tokens[c.value] } : false) } }));
    const report = await verifyAgent(scoped.baseUrl, { auth: ["token-a", "token-b"] });
    for (const id of ["jsonrpc.owner-get", "jsonrpc.owner-cancel", "jsonrpc.owner-subscribe"]) expect(outcome(report, id), renderTable(report)).toMatchObject({ outcome: "pass", level: "SHOULD" });
    expect(report.failed).toBe(false);

    const shared = await started(startServer("0.3.0", "node", { auth: { verify: (c) => tokens[c.value] !== undefined } }));
    const unscoped = await verifyAgent(shared.baseUrl, { auth: ["token-a", "token-b"] });
    expect(outcome(unscoped, "jsonrpc.owner-get")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("credential B answered a result") });
    // SHOULD in 0.3.0: reported, not a failed run.
    expect(unscoped.failed).toBe(false);
  });

  it("a card that also lists 0.3 HTTP+JSON says it was not checked", async () => {
    const agent = await started(startServer("0.3.0", "node", { rest: true }));
    const report = await verifyAgent(agent.baseUrl, { levels: ["MUST"] });
    expect(report.notes).toEqual([expect.stringContaining("0.3 HTTP+JSON interface: verify checks 0.3 agents over JSON-RPC only")]);
    expect(report.failed).toBe(false);
  });
});

describe("verify against other 0.x agents", () => {
  it("the official SDK 0.3 agent: checked as 0.3.0, nothing crashes, every MUST check answered", async () => {
    const sdk = await started(startSdkServer());
    const report = await verifyAgent(sdk.baseUrl);
    expect(report.version).toBe("0.3.0");
    expect(report.results.filter((r) => r.outcome === "skip" && r.level === "MUST").map((r) => r.id), renderTable(report)).toEqual([]);
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("pass");
    expect(outcome(report, "jsonrpc.get")?.outcome).toBe("pass");
    expect(outcome(report, "jsonrpc.stream")?.outcome).toBe("pass");
    // Its known departure (docs/testing.md): message/send without a message is an internal error, not invalid params.
    expect(outcome(report, "jsonrpc.invalid-params")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("code -32603, not -32602") });
  });

  it("a broken 0.3 agent: a missing preferredTransport (SHOULD), a wrong code for an unknown method, a 1.0 result shape", async () => {
    const sdk = await started(startSdkServer());
    const card = { ...sdk.card } as Record<string, unknown>;
    delete card["preferredTransport"];
    const broken = async (input: string, init?: RequestInit): Promise<Response> => {
      if (input.endsWith("/.well-known/agent-card.json")) return Response.json(card);
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; id?: number }) : {};
      if (body.method === "a2a-codegen-verify/no-such-method") return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32603, message: "no" } });
      if (body.method === "tasks/get") return Response.json({ jsonrpc: "2.0", id: body.id, result: { task: { id: "t" } } });
      return fetch(input, init);
    };
    const report = await verifyAgent(sdk.baseUrl, { fetch: broken });
    expect(outcome(report, "card.preferred-transport")).toMatchObject({ outcome: "fail", level: "SHOULD", detail: expect.stringContaining("no preferredTransport") });
    expect(outcome(report, "jsonrpc.method-not-found")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("code -32603, not -32601") });
    expect(outcome(report, "jsonrpc.get")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("not a valid GetTaskResponse") });
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("pass");
    expect(report.failed).toBe(true);
  });

  it("a 0.2 card: told apart and skipped with the reason, not checked with 0.3's or 1.0's rules", async () => {
    const card = { name: "old", url: "http://old.test/", version: "1", protocolVersion: "0.2.5", capabilities: {}, defaultInputModes: [], defaultOutputModes: [], skills: [] };
    const report = await verifyAgent("http://old.test", { fetch: async () => Response.json(card) });
    expect(outcome(report, "card.fetch")?.outcome).toBe("pass");
    expect(report.results.filter((r) => r.id !== "card.fetch").every((r) => r.outcome === "skip" && r.detail.includes('"0.2.5"'))).toBe(true);
    expect(report.notes[0]).toContain("checks for A2A 1.0 and 0.3 agents");
  });
});
