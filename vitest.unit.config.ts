/**
 * `npm run test:unit`: the inner loop. Tests of the generator's stages and the runtime's pieces that run
 * in seconds: no server on a socket, no tsc run, no npm install, no full generation of every version.
 * `npm test` stays the whole suite (see the README's Tests section for which files are slow and why).
 */
import { defineConfig } from "vitest/config";
import { runtimeFromSource } from "./test/support/runtime-from-source.js";

export default defineConfig({
  plugins: [runtimeFromSource(import.meta.dirname)],
  test: {
    pool: "forks",
    testTimeout: 120_000,
    include: [
      "test/ir/**/*.test.ts",
      "test/emit/emitters.test.ts",
      "test/repo/runtime-from-source.test.ts",
      "test/repo/readme-counts.test.ts",
      "test/repo/generator-imports.test.ts",
      "test/diff/**/*.test.ts",
      "test/proto/**/*.test.ts",
      "test/load/protocol.test.ts",
      "test/regenerate.test.ts",
      "test/product/spec-examples.test.ts",
      "test/runtime/validation.test.ts",
      "test/runtime/wire/jsonrpc.test.ts",
      "test/runtime/wire/sse.test.ts",
      "test/runtime/http/sse-sink.test.ts",
      "test/runtime/stores/memory-store.test.ts",
      "test/runtime/stores/task-states.test.ts",
      "test/compat/interpreter.test.ts",
      "test/compat/mapping.test.ts",
      "test/compat/route.test.ts",
      "test/compat/lossy-table.test.ts",
      "test/runtime/stores/memory.test.ts",
    ],
  },
});
