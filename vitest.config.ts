import { defineConfig } from "vitest/config";
import { runtimeFromSource } from "./test/support/runtime-from-source.js";

export default defineConfig({
  // Generated code under test imports its runtime from src/runtime, not the committed copies.
  plugins: [runtimeFromSource(import.meta.dirname)],
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: "node_modules/.cache/vitest-report.json" }]],
  },
});
