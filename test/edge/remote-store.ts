/**
 * An A2AStore in Node whose every call runs on a store in a Durable Object under workerd
 * (fixtures/store-worker.ts): the arguments and the answer cross as JSON, a store error comes back as its own
 * class with its fields, and a subscription is a streamed response of NDJSON lines. The store contract suite
 * runs on it as on any store (test/edge/durable-object-store.test.ts).
 */
import { ExecutionLeaseHeldError, InvalidStoreQueryError, StoreError, StoreUnavailableError, TaskVersionConflictError } from "../../src/runtime/stores/errors.js";
import type { A2AStore, EventSubscription, EventSubscriptionOptions, LoggedEvent, TaskCommit } from "../../src/runtime/stores/contract.js";

type Json = Record<string, unknown>;

/** The error a store threw in the object, as its class. */
function errorOf(e: Json): Error {
  const message = String(e["message"]);
  switch (e["name"]) {
    case "TaskVersionConflictError":
      return new TaskVersionConflictError(String(e["taskId"]), Number(e["expectedVersion"]), Number(e["actualVersion"]));
    case "ExecutionLeaseHeldError":
      return new ExecutionLeaseHeldError(String(e["taskId"]), String(e["owner"]));
    case "InvalidStoreQueryError":
      return new InvalidStoreQueryError(String(e["field"]), message);
    case "StoreUnavailableError":
      return new StoreUnavailableError(String(e["engine"]), message.replace(/^.*? store unavailable: /, ""));
    case "StoreError":
      return new StoreError(message, e["code"] as StoreError["code"]);
    default:
      return new Error(`${String(e["name"])}: ${message}`);
  }
}

/** Opens a store on the object of namespace `ns` (two opens: two stores on one object's storage). */
export async function openRemoteStore(origin: string, ns: string): Promise<A2AStore> {
  const base = `${origin}/${encodeURIComponent(ns)}`;
  const opened = (await (await fetch(`${base}/open`, { method: "POST" })).json()) as { handle: string };
  const handle = opened.handle;

  async function call(part: string, method: string, args: unknown[]): Promise<never> {
    while (args.length > 0 && args.at(-1) === undefined) args.pop();
    const response = await fetch(`${base}/call`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ handle, part, method, args }) });
    const answer = (await response.json()) as { value?: unknown; undefined?: boolean; error?: Json };
    if (answer.error) throw errorOf(answer.error);
    return (answer.undefined ? undefined : answer.value) as never;
  }
  const part =
    (name: string) =>
    (method: string) =>
    (...args: unknown[]) =>
      call(name, method, args);

  const tasks = part("tasks");
  const configs = part("pushConfigs");
  const events = part("events");
  const outbox = part("outbox");
  const leases = part("leases");
  const subscriptions = new Set<AbortController>();

  function subscribe(taskId: string, listener: (event: LoggedEvent) => void, options: EventSubscriptionOptions = {}): EventSubscription {
    const abort = new AbortController();
    subscriptions.add(abort);
    let settle: { resolve(): void; reject(e: Error): void } | undefined;
    const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    ready.catch(() => undefined);
    const query = new URLSearchParams({ handle, task: taskId, ...(options.after === undefined ? {} : { after: String(options.after) }) });
    void (async () => {
      try {
        const response = await fetch(`${base}/subscribe?${query}`, { signal: abort.signal });
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        let buffered = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffered += value;
          let newline: number;
          while ((newline = buffered.indexOf("\n")) >= 0) {
            const line = JSON.parse(buffered.slice(0, newline)) as Json;
            buffered = buffered.slice(newline + 1);
            if (abort.signal.aborted) return;
            if (line["event"]) listener(line["event"] as LoggedEvent);
            else if (line["ready"]) settle?.resolve();
            else if (line["readyError"]) settle?.reject(errorOf(line["readyError"] as Json));
            else if (line["error"]) options.onError?.(errorOf(line["error"] as Json) as StoreError);
          }
        }
      } catch (error) {
        if (!abort.signal.aborted) settle?.reject(error instanceof Error ? error : new Error(String(error)));
      }
    })();
    return {
      ready,
      close: () => {
        abort.abort();
        subscriptions.delete(abort);
      },
    };
  }

  return {
    engine: "durable-object",
    tasks: {
      keepsWriteIds: true,
      storesTaskPatches: true,
      get: tasks("get"),
      save: tasks("save"),
      list: tasks("list"),
      load: tasks("load"),
      // The runtime's interimText is a function: its text crosses the wire, made at the call as the store would read it.
      commit: (write: TaskCommit) => {
        const { interimText, ...rest } = write;
        return call("tasks", "commit", [interimText === undefined ? rest : { ...rest, interimTextValue: interimText() }]);
      },
      query: tasks("query"),
    },
    pushConfigs: { set: configs("set"), get: configs("get"), list: configs("list"), delete: configs("delete") },
    events: { append: events("append"), read: events("read"), end: events("end"), subscribe },
    outbox: { enqueue: outbox("enqueue"), claim: outbox("claim"), ack: outbox("ack"), retry: outbox("retry"), size: outbox("size") },
    leases: { acquire: leases("acquire"), renew: leases("renew"), release: leases("release"), holder: leases("holder"), claimExpired: leases("claimExpired") },
    purgeFinished: (options) => call("", "purgeFinished", [options]),
    ping: () => call("", "ping", []),
    close: async () => {
      for (const abort of subscriptions) abort.abort();
      subscriptions.clear();
      await call("", "close", []);
    },
  };
}
