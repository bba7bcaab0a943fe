/** The store contract on the in-memory store (the embedded default). */
import { InMemoryStore } from "../../src/runtime/tasks.js";
import { storeContract } from "./contract.js";

const stores = new Map<string, InMemoryStore>();
storeContract("memory", {
  // One process: two "instances" of a namespace are the same store.
  async open(ns) {
    let store = stores.get(ns);
    if (!store) stores.set(ns, (store = new InMemoryStore()));
    return store;
  },
  async drop(ns) {
    stores.delete(ns);
  },
});
