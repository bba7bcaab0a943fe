/** The store contract on Redis (A2A_TEST_REDIS_URL; `source .ci/engines.sh` starts one), and what is Redis's own. */
import { createClient } from "@redis/client";
import { describe, expect, it } from "vitest";
import { RedisStore } from "../../../src/runtime/stores/redis.js";
import { engineUrl, roundTripSuite, scriptEngine, storeContract, unreachableEngineSuite } from "../../support/stores/contract.js";

unreachableEngineSuite(
  "redis",
  (url) => RedisStore.connect({ url: url(0), connectTimeoutMs: 1_000, commandTimeoutMs: 1_000 }),
  (port) => `redis://127.0.0.1:${port}`,
);

const url = engineUrl("A2A_TEST_REDIS_URL", "Redis");
if (url) {
  const shared = url;
  const open = (ns: string, url?: string) => RedisStore.connect({ url: url ?? shared, keyPrefix: `${ns}:`, connectTimeoutMs: 2_000, commandTimeoutMs: 5_000 });
  const drop = async (ns: string) => {
    const store = await open(ns);
    await store.dropKeys();
    await store.close();
  };
  storeContract("redis", { open, drop, privateEngine: scriptEngine("redis") });
  roundTripSuite("redis", open, drop);

  describe("redis store data layout", () => {
    it("refuses data written by a newer store, with a message saying so", async () => {
      const ns = `v${Date.now().toString(36)}`;
      const client = createClient({ url });
      await client.connect();
      try {
        await client.set(`${ns}:schema`, "7");
        await expect(open(ns)).rejects.toThrow(/data layout is at version 7, newer than this store knows \(2\)/);
        // Data of layout 1 (before a running task's patches) is read, and its version raised, so that a
        // store of layout 1 no longer opens it (it would not apply the patches).
        await client.set(`${ns}:schema`, "1");
        await (await open(ns)).close();
        expect(await client.get(`${ns}:schema`)).toBe("2");
      } finally {
        await client.del(`${ns}:schema`);
        await client.close();
      }
    });
  });
}
