/** The store contract on PostgreSQL (A2A_TEST_POSTGRES_URL; `source .ci/engines.sh` starts one). */
import { PostgresStore } from "../../src/runtime/stores/postgres.js";
import { engineUrl, scriptControl, storeContract } from "./contract.js";

const url = engineUrl("A2A_TEST_POSTGRES_URL", "PostgreSQL");
if (url) {
  const open = (ns: string) => PostgresStore.connect({ connectionString: url, tablePrefix: `${ns}_`, connectTimeoutMs: 2_000, queryTimeoutMs: 5_000 });
  storeContract("postgres", {
    open,
    async drop(ns) {
      const store = await open(ns);
      await store.dropTables();
      await store.close();
    },
    control: scriptControl("postgres"),
  });
}
