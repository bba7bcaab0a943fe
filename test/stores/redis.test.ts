/** The store contract on Redis (A2A_TEST_REDIS_URL; `source .ci/engines.sh` starts one). */
import { RedisStore } from "../../src/runtime/stores/redis.js";
import { engineUrl, scriptControl, storeContract } from "./contract.js";

const url = engineUrl("A2A_TEST_REDIS_URL", "Redis");
if (url) {
  const open = (ns: string) => RedisStore.connect({ url, keyPrefix: `${ns}:`, connectTimeoutMs: 2_000, commandTimeoutMs: 5_000 });
  storeContract("redis", {
    open,
    async drop(ns) {
      const store = await open(ns);
      await store.dropKeys();
      await store.close();
    },
    control: scriptControl("redis"),
  });
}
