/// <reference types="node" />
/**
 * The Hono adapter on @hono/node-server (server/hono-node.ts) answers on the node request and response the
 * server hands over, as the node adapter does (node.ts `handleNodeRequest`): neither a web Request, with its
 * body stream, nor a web Response is made; an SSE stream is written straight to the socket instead of
 * through a ReadableStream read chunk by chunk.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

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
