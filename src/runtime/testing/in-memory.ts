/**
 * The in-memory transport of the test kit: a `fetch` that hands each request to a server core in the same
 * process (through the web adapter, as Hono would), so the generated client talks to a `createA2AServer`
 * core over its real bindings (JSON-RPC, HTTP+JSON, SSE streams) without a socket.
 */
import { handleWebRequest } from "../adapters/web.js";
import type { FetchLike } from "../client/fetch.js";
import type { A2AServerCore } from "../http/server.js";
import { TEST_AGENT_ORIGIN } from "./mock-agent.js";

/** The origin in-memory agents answer on (any URL works; the client's card fetch and calls use this one). */
export const IN_MEMORY_ORIGIN = TEST_AGENT_ORIGIN;

/** A `fetch` answered by `core`: pass it as the client's `fetch` option (or to `fromAgentUrl`). */
export function inMemoryFetch(core: A2AServerCore): FetchLike {
  return async (input, init) => handleWebRequest(core, new Request(input, init));
}
