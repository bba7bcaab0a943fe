/**
 * Wire-level helpers for the A2A 1.0 interop tests (sdk-v1.test.ts): raw JSON-RPC POSTs that carry the
 * `A2A-Version: 1.0` header, ProtoJSON and SDK (ts-proto) messages, and an SSE stub. `departs()`, `drain()`
 * and `textOf()` come from ./wire.ts and work unchanged (1.0 parts carry `text` directly).
 */
import { randomUUID } from "node:crypto";
import { Message, SendMessageRequest } from "a2a-sdk-v1";
import { rawRpc, startTwoLineSseStub, type RawAnswer } from "./jsonrpc.js";

type Json = Record<string, unknown>;

export const V1_HEADERS = { "a2a-version": "1.0" };

/** One raw A2A 1.0 JSON-RPC request (with `A2A-Version: 1.0`), read to its end. */
export function rpc1(
  url: string,
  method: string,
  params: unknown,
  id: number | string | null = 1,
  options: { headers?: Record<string, string>; notification?: boolean } = {},
): Promise<RawAnswer> {
  return rawRpc(url, method, params, id, { ...options, headers: { ...V1_HEADERS, ...options.headers } });
}

/** POSTs a raw body (which may be an invalid JSON-RPC request) with `A2A-Version: 1.0`. */
export async function rawBody(url: string, body: string): Promise<{ status: number; contentType: string; text: string; json: Json | undefined }> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...V1_HEADERS }, body });
  const text = await response.text();
  let json: Json | undefined;
  try {
    json = JSON.parse(text) as Json;
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", text, json };
}

/** The result of a raw call, or a thrown error with the raw answer when it was not a success. */
export async function resultOf(url: string, method: string, params: unknown): Promise<Json> {
  const answer = await rpc1(url, method, params);
  const result = answer.bodies[0]?.result as Json | undefined;
  if (result === undefined) throw new Error(`${method} failed: ${answer.status} ${answer.text.slice(0, 300)}`);
  return result;
}

/** The JSON-RPC error of an answer (the last body: a stream's error is its last event). */
export const errorOf = (answer: { bodies: Json[] }) => answer.bodies.at(-1)?.error as Json | undefined;

/** A user message in ProtoJSON (the wire shape of A2A 1.0). */
export function wireMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Json {
  return { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...ids };
}

/** A user message as the SDK's (ts-proto) `Message`. */
export function sdkMessage(text: string, ids: { taskId?: string; contextId?: string } = {}): Message {
  return Message.fromJSON(wireMessage(text, ids));
}

/** `SendMessageRequest` params for the SDK client. */
export function sdkSend(text: string, ids: { taskId?: string; contextId?: string } = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: wireMessage(text, ids) });
}

/** The two-line SSE stub of the 0.3 suite, answering a 1.0 direct reply (`{ message }`). */
export function startTwoLineSseStubV1(): Promise<{ url: string; close(): Promise<void> }> {
  return startTwoLineSseStub({ message: { messageId: "m-1", role: "ROLE_AGENT", parts: [{ text: "two lines" }] } });
}
