/**
 * The store engines (PostgreSQL, Redis, MySQL) a test needs, from A2A_TEST_POSTGRES_URL / A2A_TEST_REDIS_URL /
 * A2A_TEST_MYSQL_URL (`source .ci/engines.sh` starts them, MySQL as Debian's MariaDB, and sets them). One rule for every engine-dependent test file: an
 * engine that is not set gives, outside CI, a skipped suite whose name says which engine and how to get
 * it (so a file never ends with "No test suite found"); in CI (CI set, not "false"/"0") a failing test.
 */
import { describe, it } from "vitest";

export const ENGINES = {
  postgres: { variable: "A2A_TEST_POSTGRES_URL", name: "PostgreSQL" },
  redis: { variable: "A2A_TEST_REDIS_URL", name: "Redis" },
  mysql: { variable: "A2A_TEST_MYSQL_URL", name: "MySQL (MariaDB)" },
} as const;
export type EngineName = keyof typeof ENGINES;

/** True in CI: CI is set to anything but "", "0" or "false". */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "0" && ci !== "false";
}

/** What to say when an engine is not set: the engine, its variable and how to start it. */
export function missingEngineMessage(engine: EngineName): string {
  const { name, variable } = ENGINES[engine];
  return `${name} is not available: ${variable} is not set (\`source .ci/engines.sh\` starts PostgreSQL and Redis and sets it)`;
}

/**
 * The URL of an engine, or undefined when its variable is not set; then `what` (the tests that need it)
 * is registered as a skipped suite naming the engine and how to get it, or in CI as a failing test.
 */
export function engineUrl(engine: EngineName, what: string): string | undefined {
  const url = process.env[ENGINES[engine].variable];
  if (url) return url;
  const message = missingEngineMessage(engine);
  if (inCI()) {
    describe(`${what} on ${ENGINES[engine].name}`, () => {
      it("has an engine to test against", () => {
        throw new Error(`${message}; in CI every engine must be there`);
      });
    });
  } else {
    console.warn(`skipping ${what} on ${ENGINES[engine].name}: ${message}`);
    describe.skip(`${what} on ${ENGINES[engine].name} — skipped: ${message}`, () => {
      it("needs the engine", () => undefined);
    });
  }
  return undefined;
}
