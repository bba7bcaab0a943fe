/**
 * A store with real latency: every call of every part waits `ms` before and after it runs, like a
 * database across a network. For tests of races between concurrent requests (issue 16 item 2).
 */
import type { A2AStore } from "../../../src/runtime/stores/contract.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function slow<T extends object>(target: T, ms: number): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== "function" || key === "subscribe" || key === "constructor") return value;
      return async (...args: unknown[]) => {
        await sleep(ms);
        const result: unknown = await (value as (...a: unknown[]) => unknown).apply(object, args);
        await sleep(ms);
        return result;
      };
    },
  });
}

export function slowStore(store: A2AStore, ms = 5): A2AStore {
  return {
    engine: `${store.engine} (+${ms} ms)`,
    tasks: slow(store.tasks, ms),
    pushConfigs: slow(store.pushConfigs, ms),
    events: slow(store.events, ms),
    outbox: slow(store.outbox, ms),
    leases: slow(store.leases, ms),
    purgeFinished: (options) => slow(store, ms).purgeFinished(options),
    close: () => store.close(),
  };
}
