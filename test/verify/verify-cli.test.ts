// `a2a-codegen verify` from the command line against the project's own 1.0.1 agent served on a socket by the
// node:http adapter (exit 0, every MUST check passes, --json and --junit written), the same agent behind the
// Hono adapter (its fetch handler, no socket), and an agent that answers nothing right (exit 1).
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyAgent } from "../../src/verify/verify.js";
import { renderTable } from "../../src/verify/report.js";
import { generateKit, type Kit } from "../kit/generated-kit.js";
import { ROOT, tempDir } from "../support/project.js";

let kit: Kit;
const servers: Server[] = [];
const executor = { async execute(_ctx: unknown, events: any) { events.inputRequired("What next?"); } };

/** The kit's mock card with its interfaces at `base`. */
function cardAt(base: string): Record<string, unknown> {
  const card = structuredClone(kit.testing["MOCK_AGENT_CARD"]) as Record<string, any>;
  card["supportedInterfaces"] = card["supportedInterfaces"].map((i: Record<string, unknown>) => ({ ...i, url: i["protocolBinding"] === "JSONRPC" ? `${base}/` : base }));
  return card;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

function cli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "dist", "bin.cjs"), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}

beforeAll(async () => {
  kit = await generateKit("1.0.1", ["node", "hono"]);
}, 120_000);
afterAll(() => {
  for (const server of servers) server.close();
});

describe("a2a-codegen verify <url>", () => {
  it("node:http adapter on a socket: exit 0, every MUST check passes, JSON and JUnit written", async () => {
    let handler: ((req: any, res: any) => void) | undefined;
    const base = await listen((req, res) => handler?.(req, res));
    handler = kit.servers["node"]!["createNodeHandler"](kit.core["createA2AServer"]({ card: cardAt(base), executor }));
    const junit = join(tempDir("verify-"), "verify.xml");
    const { code, out } = await cli(["verify", base, "--json", "--junit", junit]);
    expect(code, out).toBe(0);
    const report = JSON.parse(out) as { failed: boolean; results: Array<{ id: string; outcome: string; level: string }> };
    expect(report.failed).toBe(false);
    expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "fail")).toEqual([]);
    // What is skipped says why: no gRPC interface on this card, no security to scope tasks by.
    expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "skip").every((r) => r.id.startsWith("grpc.") || r.id.includes(".owner-"))).toBe(true);
    expect(report.results.filter((r) => /^(jsonrpc|rest)\.(send|get|cancel|stream)$/.test(r.id)).map((r) => r.outcome)).toEqual(Array(8).fill("pass"));
    expect(readFileSync(junit, "utf8")).toContain('failures="0"');
  });

  it("Hono adapter (its fetch handler): every MUST check passes on both bindings", async () => {
    const app = kit.servers["hono"]!["a2aHonoApp"](kit.core["createA2AServer"]({ card: cardAt("http://hono.test"), executor }));
    const report = await verifyAgent("http://hono.test", { fetch: async (input, init) => app.fetch(new Request(input, init)) });
    expect(report.results.filter((r) => r.level === "MUST" && r.outcome === "fail"), renderTable(report)).toEqual([]);
    expect(report.results.filter((r) => r.scope === "JSONRPC" || r.scope === "HTTP+JSON").filter((r) => r.outcome === "pass").length).toBeGreaterThanOrEqual(15);
  });

  it("an agent that answers every call with {}: exit 1, the table names the MUST failures", async () => {
    let base = "";
    base = await listen((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(req.method === "GET" ? JSON.stringify(cardAt(base)) : "{}");
    });
    const { code, out } = await cli(["verify", base, "--binding", "jsonrpc"]);
    expect(code).toBe(1);
    expect(out).toMatch(/FAIL\s+MUST\s+jsonrpc\.send/);
    expect(out).toMatch(/FAIL\s+MUST\s+jsonrpc\.method-not-found/);
    expect(out).not.toContain("rest.");
  });

  it("refuses a URL that is not one, and an unknown level, as usage errors", async () => {
    expect((await cli(["verify", "not a url"])).code).toBe(2);
    const bad = await cli(["verify", "http://127.0.0.1:9", "--level", "MAY"]);
    expect(bad.code).toBe(2);
    expect(bad.out).toContain("unknown level");
    const three = await cli(["verify", "http://127.0.0.1:9", "--auth", "a", "--auth", "b", "--auth", "c"]);
    expect(three.code).toBe(2);
    expect(three.out).toContain("--auth given 3 times");
    const unset = await cli(["verify", "http://127.0.0.1:9", "--auth", "env:A2A_CODEGEN_TEST_UNSET_TOKEN"]);
    expect(unset.code).toBe(2);
    expect(unset.out).toContain("A2A_CODEGEN_TEST_UNSET_TOKEN is not set");
  });

  it("--auth twice and --binding grpc from the command line: the credentials reach the owner checks, values never printed", async () => {
    let handler: ((req: any, res: any) => void) | undefined;
    const base = await listen((req, res) => handler?.(req, res));
    const card = { ...cardAt(base), securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } }, securityRequirements: [{ schemes: { bearer: { list: [] } } }] };
    const tokens: Record<string, string> = { "secret-token-a": "a", "secret-token-b": "b" };
    handler = kit.servers["node"]!["createNodeHandler"](kit.core["createA2AServer"]({ card, executor, auth: { verify: (c: { value: string }) => (tokens[c.value] ? { allow: true, principal: tokens[c.value] } : false) } }));
    const { code, out } = await cli(["verify", base, "--auth", "secret-token-a", "--auth", "Authorization: Bearer secret-token-b", "--binding", "jsonrpc,grpc", "--json"]);
    expect(code, out).toBe(0);
    const report = JSON.parse(out) as { results: Array<{ id: string; outcome: string; detail: string }> };
    expect(report.results.find((r) => r.id === "jsonrpc.owner-get")?.outcome).toBe("pass");
    expect(report.results.find((r) => r.id === "grpc.send")).toMatchObject({ outcome: "skip", detail: "the card lists no 1.0 GRPC interface" });
    expect(report.results.some((r) => r.id.startsWith("rest."))).toBe(false);
    expect(out).not.toContain("secret-token");
  });
});
