/// <reference types="node" />
/**
 * The Hono adapter on @hono/node-server (server/hono-node.ts): the body is read from the node request (its
 * events), the headers and the disconnect signal come from node too, so the web Request, with its body
 * stream, is never made; the answer is a web Response as the web entry's (web.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { A2AServerCore } from "../http/server.js";
import { coreRequest, readBody } from "./node.js";
import { internalError, webResponse } from "./web.js";

/** The node request and response a web framework runs on, where it hands them over (@hono/node-server: `c.env`). */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** The node request and response in a Hono context's `env` under @hono/node-server; undefined on other runtimes. */
export function nodeBindingsOf(env: unknown): NodeBindings | undefined {
  if (typeof env !== "object" || env === null) return undefined;
  const { incoming, outgoing } = env as { incoming?: unknown; outgoing?: unknown };
  const isStream = (value: unknown) => typeof value === "object" && value !== null && typeof (value as { on?: unknown }).on === "function";
  return isStream(incoming) && isStream(outgoing) ? { incoming: incoming as IncomingMessage, outgoing: outgoing as ServerResponse } : undefined;
}

/** Handles the node request a web framework on node:http hands over, answering a web Response. */
export async function handleNodeAsWebRequest(core: A2AServerCore, node: NodeBindings): Promise<Response> {
  const { incoming, outgoing } = node;
  try {
    const body =
      incoming.method === "POST" ? await readBody(incoming, core.limits.maxBodyBytes, incoming.headers["content-length"], core.limits.bodyTimeoutMs) : undefined;
    return webResponse(await core.handle(coreRequest(incoming, body, outgoing)));
  } catch {
    return internalError();
  }
}
