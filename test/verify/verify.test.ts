// `a2a-codegen verify` (issue 32) against the project's own 1.0.1 agent (in process through the test kit's
// transport, on both bindings; every MUST check passes) and against deliberately broken agents built here,
// each defect reported at its check. Sections cited are A2A 1.0.1's.
import { beforeAll, describe, expect, it } from "vitest";
import { verifyAgent, VERIFY_MARK, type VerifyReport } from "../../src/verify/verify.js";
import { renderJunit, renderTable } from "../../src/verify/report.js";
import { generateKit, type Kit } from "../kit/generated-kit.js";

let kit: Kit;
let agentFetch: (input: string, init?: RequestInit) => Promise<Response>;
const seen: unknown[] = [];
beforeAll(async () => {
  kit = await generateKit();
  const executor = {
    async execute(ctx: any, events: any) {
      seen.push(ctx.message?.metadata);
      events.inputRequired("What next?");
    },
  };
  const core = kit.core["createA2AServer"]({ card: kit.testing["MOCK_AGENT_CARD"], executor });
  const inMemory = kit.testing["inMemoryFetch"](core);
  agentFetch = (input, init) => inMemory(input, init ?? {});
}, 120_000);

const outcome = (report: VerifyReport, id: string) => report.results.find((r) => r.id === id);

describe("verify against the project's own agent", () => {
  it("passes every MUST check on JSON-RPC and HTTP+JSON, and marks its own messages", async () => {
    const report = await verifyAgent("http://agent.test", { fetch: agentFetch });
    const failed = report.results.filter((r) => r.outcome === "fail" && r.level === "MUST");
    expect(failed, renderTable(report)).toEqual([]);
    expect(report.failed).toBe(false);
    for (const id of ["jsonrpc.send", "jsonrpc.get", "jsonrpc.cancel", "jsonrpc.stream", "jsonrpc.version", "rest.send", "rest.get", "rest.cancel", "rest.stream", "rest.task-not-found"]) {
      expect(outcome(report, id)?.outcome, id).toBe("pass");
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((m) => typeof m === "object" && m !== null && (m as Record<string, unknown>)[VERIFY_MARK] === true)).toBe(true);
  });

  it("reads the card below the agent URL's path (an agent mounted at /a2a)", async () => {
    const urls: string[] = [];
    const mounted = (input: string, init?: RequestInit) => {
      urls.push(input);
      return input.startsWith("http://agent.test/a2a/") ? agentFetch(input.replace("/a2a/", "/"), init) : agentFetch(input, init);
    };
    const report = await verifyAgent("http://agent.test/a2a", { fetch: mounted, bindings: [] });
    expect(urls[0]).toBe("http://agent.test/a2a/.well-known/agent-card.json");
    expect(outcome(report, "card.schema")?.outcome).toBe("pass");
  });

  it("a 1.0 card that also lists a 0.3 interface: its 1.0 interfaces checked, the 0.3 one named in a note", async () => {
    const dual = async (input: string, init?: RequestInit) => {
      const response = await agentFetch(input, init);
      if (!input.endsWith("/.well-known/agent-card.json")) return response;
      const card = (await response.json()) as { supportedInterfaces: unknown[] };
      card.supportedInterfaces.push({ url: "http://agent.test/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" });
      return Response.json(card);
    };
    const report = await verifyAgent("http://agent.test", { fetch: dual, levels: ["MUST"] });
    expect(report.failed, renderTable(report)).toBe(false);
    expect(report.notes).toEqual([expect.stringContaining("also lists a 0.3 JSONRPC interface (http://agent.test/v03): not checked")]);
    expect(renderTable(report)).toContain("note: the card also lists a 0.3 JSONRPC interface");
  });

  it("filters by level and binding, and writes JUnit XML", async () => {
    const report = await verifyAgent("http://agent.test", { fetch: agentFetch, levels: ["MUST"], bindings: ["JSONRPC"] });
    expect(report.results.every((r) => r.level === "MUST" && r.scope !== "HTTP+JSON")).toBe(true);
    expect(report.results.some((r) => r.scope === "JSONRPC")).toBe(true);
    const junit = renderJunit(report);
    expect(junit).toContain('<testsuite name="a2a-codegen verify JSONRPC"');
    expect(junit).toContain("jsonrpc.send [MUST §3.1.1, §9.4.1]");
  });
});

/** The own agent with one defect put in by `tamper` (a request → response rewrite). */
function broken(tamper: (request: Request, answer: () => Promise<Response>) => Promise<Response>) {
  return (input: string, init?: RequestInit) => {
    const request = new Request(input, init);
    return tamper(request.clone(), () => agentFetch(input, init));
  };
}
const rpcMethod = async (request: Request) => {
  try {
    return (JSON.parse(await request.text()) as { method?: string }).method;
  } catch {
    return undefined;
  }
};

describe("verify against broken agents: each defect at its check", () => {
  it("a wrong error code for an unknown task (§3.3.2)", async () => {
    const agent = broken(async (request, answer) => {
      if ((await rpcMethod(request)) !== "GetTask") return answer();
      const body = (await (await answer()).json()) as { error?: { code: number } };
      if (body.error?.code === -32001) body.error.code = -32603;
      return Response.json(body);
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["JSONRPC"] });
    expect(outcome(report, "jsonrpc.task-not-found")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("code -32603, not -32001") });
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("pass");
    expect(report.failed).toBe(true);
  });

  it("a missing required field in a result (the task's status)", async () => {
    const agent = broken(async (request, answer) => {
      if ((await rpcMethod(request)) !== "GetTask") return answer();
      const body = (await (await answer()).json()) as { result?: Record<string, unknown> };
      if (body.result) delete body.result["status"];
      return Response.json(body);
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["JSONRPC"] });
    expect(outcome(report, "jsonrpc.get")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("not a valid GetTaskRpcResponse") });
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("pass");
  });

  it("bad SSE framing: events not separated by a blank line, data that is not JSON (§9.4.2)", async () => {
    const agent = broken(async (request, answer) => {
      if ((await rpcMethod(request)) !== "SendStreamingMessage") return answer();
      return new Response("data: {\"jsonrpc\":\"2.0\"\ndata: not json\n\n", { headers: { "content-type": "text/event-stream" } });
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["JSONRPC"] });
    expect(outcome(report, "jsonrpc.stream")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("is not JSON") });
  });

  it("a stream answered as plain JSON over HTTP+JSON (§11.7)", async () => {
    const agent = broken(async (request, answer) => (new URL(request.url).pathname === "/message:stream" ? Response.json({ task: {} }) : answer()));
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["HTTP+JSON"] });
    expect(outcome(report, "rest.stream")).toMatchObject({ outcome: "fail", detail: expect.stringContaining('content-type "application/json"') });
    expect(outcome(report, "rest.send")?.outcome).toBe("pass");
  });

  it("a 500 instead of 404 for an unknown task over HTTP+JSON (§5.4)", async () => {
    const agent = broken(async (request, answer) => {
      const res = await answer();
      return request.method === "GET" && res.status === 404 ? new Response(await res.text(), { status: 500, headers: res.headers }) : res;
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["HTTP+JSON"] });
    expect(outcome(report, "rest.task-not-found")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("HTTP 500, not 404") });
  });

  it("a card without caching headers fails the SHOULD checks only (§8.6.1)", async () => {
    const agent = broken(async (request, answer) => {
      const res = await answer();
      if (!request.url.endsWith("/.well-known/agent-card.json")) return res;
      return new Response(await res.text(), { status: 200, headers: { "content-type": "application/json" } });
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: [] });
    expect(outcome(report, "card.cache-control")).toMatchObject({ outcome: "fail", level: "SHOULD" });
    expect(outcome(report, "card.etag")).toMatchObject({ outcome: "fail", level: "SHOULD" });
    expect(report.failed).toBe(false);
  });

  it("one agent with four defects (wrong error code, missing field, bad SSE framing, unscoped tasks): each at its check, nothing else fails", async () => {
    // The card declares a bearer scheme; the verifier accepts both callers' tokens but names no principal, so
    // every caller shares one scope (the unscoped-tasks defect, 1.0.1 §13.1).
    const card = { ...structuredClone(kit.testing["MOCK_AGENT_CARD"]), securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] };
    const executor = { async execute(_ctx: unknown, events: any) { events.inputRequired("What next?"); } };
    const core = kit.core["createA2AServer"]({ card, executor, auth: { verify: (c: { value: string }) => c.value === "token-a" || c.value === "token-b" } });
    const inner = kit.testing["inMemoryFetch"](core) as (input: string, init: RequestInit) => Promise<Response>;
    const agent = async (input: string, init: RequestInit = {}): Promise<Response> => {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname;
      const method = await rpcMethod(request.clone());
      const response = await inner(input, init);
      if (method === "GetTask") {
        const body = (await response.json()) as { error?: { code: number }; result?: Record<string, unknown> };
        if (body.error?.code === -32001) body.error.code = -32603; // the wrong error code (§3.3.2, §5.4)
        if (body.result) delete body.result["status"]; // the missing required field
        return Response.json(body);
      }
      if (method === "SendStreamingMessage") {
        // Bad SSE framing: the events separated by a line break, not a blank line.
        const text = (await response.text()).replace(/\n\n(?=.)/g, "\n");
        return new Response(text, { headers: { "content-type": "text/event-stream" } });
      }
      if (path === "/message:stream") {
        // Bad SSE framing over HTTP+JSON: the last event not ended by a blank line.
        const text = (await response.text()).replace(/\n\n$/, "\n");
        return new Response(text, { headers: { "content-type": "text/event-stream" } });
      }
      return response;
    };
    const report = await verifyAgent("http://agent.test", { fetch: agent, auth: ["token-a", "token-b"] });
    const failed = report.results.filter((r) => r.outcome === "fail").map((r) => r.id);
    expect(failed.sort(), renderTable(report)).toEqual(
      ["jsonrpc.task-not-found", "jsonrpc.get", "jsonrpc.stream", "rest.stream", "jsonrpc.owner-get", "jsonrpc.owner-cancel", "jsonrpc.owner-subscribe", "rest.owner-get", "rest.owner-cancel", "rest.owner-subscribe"].sort(),
    );
    expect(outcome(report, "jsonrpc.task-not-found")?.detail).toContain("code -32603, not -32001");
    expect(outcome(report, "jsonrpc.get")?.detail).toMatch(/not a valid GetTaskRpcResponse.*status/);
    expect(outcome(report, "jsonrpc.stream")?.detail).toMatch(/holds \d+ JSON lines: events not separated by a blank line/);
    expect(outcome(report, "rest.stream")?.detail).toContain("last event is not ended by a blank line");
    expect(outcome(report, "jsonrpc.owner-get")?.detail).toContain("with credential B answered a result");
    expect(outcome(report, "rest.owner-get")?.detail).toContain("with credential B answered HTTP 200");
  });

  it("an agent that never answers GetTask and never ends its stream: those checks fail on the timeout, the run goes on", async () => {
    const hang = (signal: AbortSignal | null | undefined) => new Promise<Response>((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason), { once: true }));
    const agent = broken(async (request, answer) => {
      const method = await rpcMethod(request);
      if (method === "GetTask") return hang(request.signal);
      if (method !== "SendStreamingMessage") return answer();
      const first = await answer();
      const reader = first.body!.getReader();
      const { value } = await reader.read(); // the first event, then nothing more
      return new Response(new ReadableStream({ start: (c) => c.enqueue(value) }), { headers: { "content-type": "text/event-stream" } });
    });
    const report = await verifyAgent("http://agent.test", { fetch: agent, bindings: ["JSONRPC"], timeoutMs: 300 });
    expect(outcome(report, "jsonrpc.get"), renderTable(report)).toMatchObject({ outcome: "fail", detail: "no answer within 0.3 s" });
    expect(outcome(report, "jsonrpc.task-not-found")).toMatchObject({ outcome: "fail", detail: "no answer within 0.3 s" });
    expect(outcome(report, "jsonrpc.stream")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("no end of stream within 0.3 s") });
    expect(outcome(report, "jsonrpc.send")?.outcome).toBe("pass");
    expect(outcome(report, "jsonrpc.method-not-found")?.outcome).toBe("pass");
  });

  it("no card: reported, every other check skipped, nothing crashes", async () => {
    const report = await verifyAgent("http://agent.test", { fetch: async () => new Response("nope", { status: 404 }) });
    expect(outcome(report, "card.fetch")).toMatchObject({ outcome: "fail", detail: expect.stringContaining("HTTP 404") });
    expect(report.results.filter((r) => r.id !== "card.fetch").every((r) => r.outcome === "skip")).toBe(true);
  });
});
