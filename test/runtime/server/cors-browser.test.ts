/**
 * Issue 34 item 4's acceptance: a page served from another origin (a second 127.0.0.1 port) calls each
 * HTTP binding of a Fastify, Express, Hono and node:http agent in headless Chromium: JSON-RPC SendMessage
 * and SendStreamingMessage, HTTP+JSON message:send, message:stream and GetTask, with the A2A-Version header
 * (so every call is preflighted) and reading the streams to their end. The same page from an origin the
 * agent does not allow (`localhost` instead of `127.0.0.1`) is refused by the browser. Debian's chromium
 * through playwright-core; skipped where it is not installed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_SKIP, chromiumMissing, launchChromium } from "../../support/chromium.js";
import { FRAMEWORKS, startServer, type RunningServer } from "../../support/servers.js";

let page: Server | undefined;
let pagePort = 0;
const agents: Array<{ framework: string; server: RunningServer }> = [];

beforeAll(async () => {
  if (chromiumMissing) return;
  page = createServer((_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>another origin</title>"));
  await new Promise<void>((resolve) => page?.listen(0, "127.0.0.1", resolve));
  pagePort = (page.address() as AddressInfo).port;
  for (const framework of FRAMEWORKS) {
    agents.push({ framework, server: await startServer("1.0.1", framework, { rest: true, options: { cors: { origins: [`http://127.0.0.1:${pagePort}`] } } }) });
  }
}, 60_000);
afterAll(async () => {
  page?.close();
  for (const { server } of agents) await server.close();
});

/** What the page does against one agent (run in the browser): each binding's calls, streams read to the end. */
async function callEveryBinding(base: string): Promise<Record<string, unknown>> {
  const headers = { "content-type": "application/json", "a2a-version": "1.0" };
  const message = (text: string) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] });
  const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const readAll = async (response: Response) => {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += new TextDecoder().decode(value);
    }
  };
  const out: Record<string, unknown> = {};
  try {
    const send = await fetch(`${base}/a2a`, { method: "POST", headers, body: rpc("SendMessage", { message: message("task") }) });
    const sent = (await send.json()) as { result?: { task?: { id: string; status: { state: string } } } };
    out.jsonrpcSend = sent.result?.task?.status.state;
    const stream = await fetch(`${base}/a2a`, { method: "POST", headers, body: rpc("SendStreamingMessage", { message: message("stream") }) });
    const streamed = await readAll(stream);
    out.jsonrpcStream = { type: stream.headers.get("content-type"), events: streamed.split("\n\n").filter((b) => b.includes("data:")).length, completed: streamed.includes("TASK_STATE_COMPLETED") };
    const restSend = await fetch(`${base}/a2a/message:send`, { method: "POST", headers, body: JSON.stringify({ message: message("task") }) });
    const restSent = (await restSend.json()) as { task?: { id: string; status: { state: string } } };
    out.restSend = restSent.task?.status.state;
    const restStream = await fetch(`${base}/a2a/message:stream`, { method: "POST", headers, body: JSON.stringify({ message: message("stream") }) });
    const restStreamed = await readAll(restStream);
    out.restStream = { type: restStream.headers.get("content-type"), events: restStreamed.split("\n\n").filter((b) => b.includes("data:")).length, completed: restStreamed.includes("TASK_STATE_COMPLETED") };
    const get = await fetch(`${base}/a2a/tasks/${restSent.task?.id}`, { headers: { "a2a-version": "1.0" } });
    out.restGet = ((await get.json()) as { id?: string }).id === restSent.task?.id;
  } catch (error) {
    out.error = String(error);
  }
  return out;
}

const missing = chromiumMissing;
if (missing) console.warn(`skipping the cross-origin browser test: ${CHROMIUM_SKIP}`);
it.skipIf(missing)(
  missing ? `a page of another origin calls every HTTP binding — skipped: no ${CHROMIUM} (apt-get install chromium)` : "a page of another origin calls every HTTP binding of every adapter in headless Chromium, streams included",
  async () => {
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(`http://127.0.0.1:${pagePort}/`);
      for (const { framework, server } of agents) {
        const result = await tab.evaluate(callEveryBinding, server.baseUrl);
        const stream = { type: expect.stringMatching(/^text\/event-stream/), events: expect.any(Number), completed: true };
        expect(result, framework).toEqual({ jsonrpcSend: "TASK_STATE_COMPLETED", jsonrpcStream: stream, restSend: "TASK_STATE_COMPLETED", restStream: stream, restGet: true });
        expect((result.jsonrpcStream as { events: number }).events, framework).toBeGreaterThanOrEqual(4);
      }
      // The same page from an origin the agents do not allow: the browser refuses the answers.
      const other = await browser.newPage();
      await other.goto(`http://localhost:${pagePort}/`);
      for (const { framework, server } of agents) {
        const result = await other.evaluate(callEveryBinding, server.baseUrl);
        expect(result.error, framework).toMatch(/Failed to fetch/);
      }
    } finally {
      await browser.close();
    }
  },
  120_000,
);
