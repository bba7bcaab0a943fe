// Generates an output with the test kit (--testing) into a folder inside the project (where msw and the
// project's packages resolve) and imports its modules as a user's test would.
import { join } from "node:path";
import { generate, writeResult } from "../../src/generate.js";
import { projectTempDir } from "../support/project.js";

/** What the tests use of a generated 1.0.1 output with the kit; the generated code itself is strictly typed. */
export interface Kit {
  dir: string;
  testing: Record<string, any>;
  msw: { mockAgentHandlers: (agent: unknown, origin?: string) => unknown[]; TEST_AGENT_ORIGIN: string };
  client: Record<string, any>;
  core: Record<string, any>;
  /** server/<framework>.ts of each framework asked for. */
  servers: Record<string, Record<string, any>>;
}

export async function generateKit(spec = "1.0.1", frameworks: Array<"node" | "hono"> = ["node"]): Promise<Kit> {
  const dir = join(projectTempDir("kit-"), `a2a-${spec}`);
  writeResult(await generate({ spec, out: dir, frameworks, transports: ["jsonrpc", "rest"], testing: true }, true));
  const [testing, msw, client, core] = await Promise.all([
    import(join(dir, "testing", "index.ts")),
    import(join(dir, "testing", "msw.ts")),
    import(join(dir, "client.ts")),
    import(join(dir, "server", "core.ts")),
  ]);
  const servers: Record<string, Record<string, any>> = {};
  for (const framework of frameworks) servers[framework] = await import(join(dir, "server", `${framework}.ts`));
  return { dir, testing, msw, client, core, servers };
}
