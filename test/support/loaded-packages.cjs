// Preloaded with `node --require` by test/write/output-cache.test.ts: at exit, writes the CommonJS modules
// the process loaded (its require cache, which also holds the CommonJS packages ESM code imported) to the
// file named by A2A_TEST_LOADED_FILE, one path per line.
const { writeFileSync } = require("node:fs");
process.on("exit", () => {
  const file = process.env.A2A_TEST_LOADED_FILE;
  if (file) writeFileSync(file, Object.keys(require.cache).join("\n"));
});
