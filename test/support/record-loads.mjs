// Preloaded with `node --import` by tests that check what a CLI run loads (test/write/output-cache.test.ts):
// every module the process resolves through the ES module loader (a hook, ./record-loads-hooks.mjs), and
// at exit every CommonJS module it loaded (its require cache, which also holds the CommonJS packages ESM
// code imported), appended to the file named by A2A_TEST_LOADED_FILE, one path or URL per line.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

const file = process.env.A2A_TEST_LOADED_FILE;
if (file) {
  register(new URL("./record-loads-hooks.mjs", import.meta.url));
  const require = createRequire(import.meta.url);
  process.on("exit", () => appendFileSync(file, `${Object.keys(require.cache).join("\n")}\n`));
}
