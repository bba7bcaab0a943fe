/**
 * The fetch the client runtime is written against: the part of `fetch` it calls, what it reads of a
 * response, and the abort it listens to (shared by client/http.ts and client/node-fetch.ts).
 */

/** The part of `fetch` the client uses; pass one to add retries, logging, a proxy or a test double. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * What the client reads of an HTTP response. A web `Response` is one; on Node without a `fetch` option,
 * `send()` answers a lighter NodeAnswer (client/node-fetch.ts) whose body {@link readText} reads straight
 * from the socket.
 */
export interface HttpAnswer {
  readonly status: number;
  readonly ok: boolean;
  readonly statusText: string;
  readonly type: string;
  readonly headers: { get(name: string): string | null };
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  /**
   * Whether {@link readWithin} can still read the body whole (client/node-fetch.ts's NodeAnswer; a web
   * `Response` has neither, and is read through {@link body}).
   */
  readonly unread?: boolean;
  /** The whole body as text, at most `limit` bytes (past it, rejects with `tooLarge()`). */
  readWithin?(limit: number, tooLarge: () => Error): Promise<string>;
}

/** The client's default request on Node (client/node-fetch.ts's `nodeRequest`): the attempt's hook aborts it. */
export type NodeRequest = (input: string, init: RequestInit, attempt?: { readonly hook: AbortHook; readonly signal: AbortSignal }) => Promise<HttpAnswer>;

/**
 * What a request needs to know of its abort: whether and why it was aborted, and a listener for it. An
 * AbortSignal is one; {@link Attempt.hook} is one without an AbortController behind it.
 */
export interface AbortHook {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}
