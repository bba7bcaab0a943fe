// The Hono adapter's two paths give the same answers: on @hono/node-server it reads the node request
// (handleNodeAsWebRequest), on any other runtime (here Hono's own app.request, no node bindings) the web
// Request (handleWebRequest). Same JSON-RPC results, same errors, same limits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modules, startServer, testCard, testExecutor, type RunningServer } from "../../support/servers.js";

const VERSION = "0.3.0";
const send = (id: string, text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "message/send", params: { message: { kind: "message", role: "user", messageId: `m-${id}`, parts: [{ kind: "text", text }] } } });

type Answer = { status: number; type: string | null; json: { id?: unknown; result?: { kind?: string; status?: { state?: string }; artifacts?: unknown[] }; error?: { code?: number } } };
const read = async (response: Response): Promise<Answer> => ({ status: response.status, type: response.headers.get("content-type"), json: (await response.json()) as Answer["json"] });

describe("Hono: the node path and the web path answer alike", () => {
  let running: RunningServer;
  let web: (body: string, headers?: Record<string, string>) => Promise<Answer>;
  let node: (body: string, headers?: Record<string, string>) => Promise<Answer>;

  beforeAll(async () => {
    running = await startServer(VERSION, "hono", { maxBodyBytes: 2048 });
    node = async (body, headers = { "content-type": "application/json" }) => read(await fetch(running.rpcUrl, { method: "POST", headers, body }));
    const m = await modules(VERSION);
    const core = m.core.createA2AServer({ card: testCard(VERSION) as never, executor: testExecutor() as never, rpcPath: "/a2a", heartbeatMs: 0, maxBodyBytes: 2048, logger: { error: () => undefined } });
    const app = m.hono.a2aHonoApp(core);
    web = async (body, headers = { "content-type": "application/json" }) => read(await app.request("/a2a", { method: "POST", headers, body }));
  });
  afterAll(async () => {
    await running.close();
  });

  it("a direct reply", async () => {
    for (const answer of [await node(send("1", "hello")), await web(send("1", "hello"))]) {
      expect(answer.status).toBe(200);
      expect(answer.type).toMatch(/^application\/json/);
      expect(answer.json.id).toBe("1");
      expect(answer.json.result?.kind).toBe("message");
    }
  });

  it("a task to its end", async () => {
    for (const answer of [await node(send("2", "task")), await web(send("2", "task"))]) {
      expect(answer.json.result?.kind).toBe("task");
      expect(answer.json.result?.status?.state).toBe("completed");
      expect(answer.json.result?.artifacts).toHaveLength(1);
    }
  });

  it("a parse error, a wrong media type and a body over the limit", async () => {
    const [nodeParse, webParse] = [await node("{"), await web("{")];
    expect([nodeParse.status, nodeParse.json.error?.code]).toEqual([200, -32700]);
    expect([webParse.status, webParse.json.error?.code]).toEqual([200, -32700]);
    const plain = { "content-type": "text/plain" };
    expect((await node(send("3", "hello"), plain)).status).toBe(415);
    expect((await web(send("3", "hello"), plain)).status).toBe(415);
    const big = send("4", "x".repeat(4096));
    expect((await node(big)).status).toBe(413);
    expect((await web(big)).status).toBe(413);
  });
});
