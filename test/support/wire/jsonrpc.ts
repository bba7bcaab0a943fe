/**
 * Small wire-level helpers for the interop tests: raw JSON-RPC POSTs, SSE parsing, user messages in the
 * 0.3.0 shape, and `departs()`, which pins a documented SDK departure from the spec.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type Json = Record<string, unknown>;

export interface RawAnswer {
  status: number;
  contentType: string;
  text: string;
  /** The JSON body, or for an event stream the data of each event, parsed. */
  bodies: Json[];
}

/** POSTs one raw JSON-RPC request (`notification: true` leaves the id out) and reads the whole answer. */
export async function rawRpc(
  url: string,
  method: string,
  params: unknown,
  id: number | string | null = 1,
  options: { headers?: Record<string, string>; notification?: boolean } = {},
): Promise<RawAnswer> {
  const request: Json = { jsonrpc: "2.0", method, params };
  if (!options.notification) request.id = id;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  let bodies: Json[] = [];
  if (contentType.startsWith("text/event-stream")) bodies = sseEvents(text).map((e) => JSON.parse(e.data) as Json);
  else if (contentType.includes("json") && text) bodies = [JSON.parse(text) as Json];
  return { status: response.status, contentType, text, bodies };
}

/** The events of an SSE body as the W3C algorithm reads them: data lines joined with "\n". */
export function sseEvents(text: string): Array<{ event: string; data: string }> {
  const events: Array<{ event: string; data: string }> = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      else if (line.startsWith("event:")) event = line.slice(6).trim();
    }
    if (data.length > 0) events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** A user message in the 0.3.0 shape. */
export function userMessage(text: string, ids: { taskId?: string; contextId?: string } = {}) {
  return {
    kind: "message" as const,
    messageId: randomUUID(),
    role: "user" as const,
    parts: [{ kind: "text" as const, text }],
    ...ids,
  };
}

export function textOf(value: unknown): string {
  const parts = (value as Json | undefined)?.parts;
  if (!Array.isArray(parts)) return "";
  return parts.map((p: Json | null) => (typeof p?.text === "string" ? p.text : "")).join("");
}

/** Reads a stream to its end. */
export async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/**
 * Runs assertions that state what the A2A 0.3.0 spec requires, on a behavior where the SDK is known to
 * depart from it (each one is written up in docs/interop.md). The test passes while the SDK fails them
 * with an assertion; it fails if the SDK starts to comply (time to update the docs) or if anything else
 * breaks (a crash is not a departure).
 */
export async function departs(check: () => unknown): Promise<void> {
  let failure: unknown;
  try {
    await check();
  } catch (error) {
    failure = error;
  }
  if (failure === undefined) {
    throw new Error("The SDK follows the spec here now: update docs/interop.md and make this a plain test.");
  }
  if (!(failure instanceof Error) || failure.name !== "AssertionError") throw failure;
}

/**
 * A stub A2A endpoint on 127.0.0.1 that answers every POST with one SSE event whose JSON data is split
 * over two `data:` lines (valid SSE: a client joins them with "\n", and JSON allows that whitespace).
 */
export async function startTwoLineSseStub(
  result: unknown = { kind: "message", messageId: "m-1", role: "agent", parts: [{ kind: "text", text: "two lines" }] },
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: unknown };
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.end(`data: {"jsonrpc":"2.0","id":${JSON.stringify(id)},\ndata: "result":${JSON.stringify(result)}}\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let sseCallId = 0;

/**
 * An A2A 1.0 streaming JSON-RPC call (`A2A-Version: 1.0`) read to its end: each event's SSE `id:` and its
 * result (or the error response itself).
 */
export async function sseCall(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Array<{ id: string | undefined; data: Record<string, unknown> }>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++sseCallId, method, params }),
  });
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((block) => block.includes("data:"))
    .map((block) => {
      const lines = block.split("\n");
      const id = lines.find((l) => l.startsWith("id:"))?.slice(3).trim();
      const data = JSON.parse(lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n")) as Record<string, unknown>;
      return { id, data: (data["result"] ?? data) as Record<string, unknown> };
    });
}
