/**
 * A fresh machine has no PostgreSQL, MySQL or Redis: the engine-dependent test files must then report a skipped
 * suite naming the engine and how to start it, not "No test suite found" (a failure); with CI=true a
 * missing engine still fails (issue 29, item 11). Runs vitest on multi-instance.test.ts, the file that
 * had no suite without engines, with the engines' variables removed.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/project.js";
import { inCI } from "../support/engines.js";

function vitest(file: string, ci: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  delete env.A2A_TEST_POSTGRES_URL;
  delete env.A2A_TEST_REDIS_URL;
  delete env.A2A_TEST_MYSQL_URL;
  delete env.CI;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  delete env.NODE_OPTIONS;
  if (ci !== undefined) env.CI = ci;
  const r = spawnSync(process.execPath, [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", file, "--reporter=verbose"], { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("engine-dependent tests without the engines (issue 29, item 11)", () => {
  const file = "test/runtime/server/multi-instance.test.ts";

  it("outside CI: the file passes with skipped suites naming each engine and `source .ci/engines.sh`", () => {
    const r = vitest(file, undefined);
    expect(r.output).not.toMatch(/No test suite found/);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/the multi-instance tests on PostgreSQL — skipped: PostgreSQL is not available: A2A_TEST_POSTGRES_URL is not set \(`source \.ci\/engines\.sh`/);
    expect(r.output).toMatch(/the multi-instance tests on Redis — skipped: Redis is not available: A2A_TEST_REDIS_URL is not set/);
    expect(r.output).toMatch(/the multi-instance tests on MySQL \(MariaDB\) — skipped: MySQL \(MariaDB\) is not available: A2A_TEST_MYSQL_URL is not set/);
  });

  it("with CI=true: the file fails, naming the missing engine", () => {
    const r = vitest(file, "true");
    expect(r.code).not.toBe(0);
    expect(r.output).toMatch(/PostgreSQL is not available: A2A_TEST_POSTGRES_URL is not set .*; in CI every engine must be there/);
    expect(r.output).toMatch(/MySQL \(MariaDB\) is not available: A2A_TEST_MYSQL_URL is not set .*; in CI every engine must be there/);
  });

  it("CI is read as CI services set it", () => {
    expect(inCI({ CI: "true" })).toBe(true);
    expect(inCI({ CI: "1" })).toBe(true);
    expect(inCI({ CI: "false" })).toBe(false);
    expect(inCI({ CI: "0" })).toBe(false);
    expect(inCI({})).toBe(false);
  });
});
