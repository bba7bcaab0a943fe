/**
 * Cloudflare Workers: the agent runs in a Durable Object, and the Worker forwards every request to it.
 *
 * Why not in the Worker itself: a task outlives the request that started it (a non-blocking send, a
 * stream, a cancel or a subscription from another request), and a Worker isolate refuses to touch from one
 * request the I/O objects another request made (an AbortSignal of a running turn, the stream of a
 * subscriber: "Cannot perform I/O on behalf of a different request"); nor do two requests reach the same
 * isolate, so the in-memory store would not be shared. A Durable Object is one instance whose requests
 * share one context: the server core lives there, like a server process (docs/edge.md).
 */
import type { A2AServerCore } from "../http/server.js";
import { createFetchHandler, type FetchHandler } from "./web.js";

/** The part of a Durable Object namespace binding used here (wrangler.toml `[[durable_objects.bindings]]`). */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(request: Request): Promise<Response> };
}

/**
 * The Durable Object's state (`ctx`) as Workers pass it, for the server factory: its `storage` (of a class
 * declared with `new_sqlite_classes`) is what the Durable Object store keeps the agent's tasks in
 * (`DurableObjectSqlStore.open(state.storage)`, `--store durable-object`).
 */
export interface DurableObjectStateLike {
  readonly storage: {
    readonly sql: { exec(query: string, ...bindings: never[]): { toArray(): Array<Record<string, unknown>> } };
    transactionSync<T>(fn: () => T): T;
  };
}

/** A Durable Object class: Workers construct it with (state, env) and call its `fetch`. */
export interface A2AObjectClass {
  new (state: unknown, env: unknown): { fetch(request: Request): Promise<Response> };
}

/**
 * The Durable Object class that serves the agent: `export const A2AAgent = a2aDurableObject((env, request) =>
 * createA2AServer({ card, executor }))`. The core is made on its first request (its origin: the card's URLs),
 * once per instance of the object. Its tasks kept in the object's storage, across evictions and restarts:
 * `a2aDurableObject((env, request, state) => createA2AServer({ card, executor, store: DurableObjectSqlStore.open(state.storage) }))`.
 */
export function a2aDurableObject(makeServer: (env: unknown, request: Request, state: DurableObjectStateLike) => A2AServerCore | Promise<A2AServerCore>): A2AObjectClass {
  return class A2AAgentObject {
    private readonly handler: FetchHandler;

    constructor(state: unknown, env: unknown) {
      this.handler = createFetchHandler((request) => makeServer(env, request, state as DurableObjectStateLike));
    }

    fetch(request: Request): Promise<Response> {
      return this.handler(request);
    }
  };
}

/**
 * The Worker in front: `export default forwardToDurableObject("A2A_AGENT")` sends every request to the one
 * object named `name` (default "agent") of the namespace bound as `binding`.
 */
export function forwardToDurableObject(binding: string, name = "agent"): { fetch(request: Request, env: unknown): Promise<Response> } {
  return {
    fetch(request, env) {
      const namespace = (env as Record<string, DurableObjectNamespaceLike | undefined> | undefined)?.[binding];
      if (namespace === undefined) {
        const body = JSON.stringify({ error: `no Durable Object namespace bound as ${binding} (wrangler.toml [[durable_objects.bindings]])` });
        return Promise.resolve(new Response(body, { status: 500, headers: { "content-type": "application/json" } }));
      }
      return namespace.get(namespace.idFromName(name) as never).fetch(request);
    },
  };
}
