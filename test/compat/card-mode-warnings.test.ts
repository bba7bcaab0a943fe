/**
 * Issue 29 item 2, for the compat card: input and output modes are media types (specification-1.0.1.md §4.4.1;
 * specification-0.3.0.md §5.5 AgentCard `defaultInputModes`: "supported media types"). The primary card's
 * modes are warned of at startup and by `generate --card`; an agent that serves 0.3.0 too (`--compat
 * 0.3.0`) has a card in 0.3.0's form as well (the generated compat/a2a-0.3.0/card.ts, converted from the
 * project's card, or one passed as `compat: { card }`), whose modes get the same check: once per mode.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { convertCard } from "../../src/card/convert.js";
import { bundledIR } from "../../src/load/protocol.js";
import { ROOT, tempDir } from "../support/project.js";
import { testCard, testExecutor } from "../support/servers.js";
import { compatOutput, type CompatOutput } from "../support/compat/agent.js";

type Json = Record<string, unknown>;

describe("startup: the compat card's modes", () => {
  let out: CompatOutput;
  beforeAll(async () => {
    out = await compatOutput();
  }, 120_000);

  /** The warnings of creating (and closing) a compat server with these cards. */
  async function startupWarnings(card: Json, compatCard: Json | undefined): Promise<string[]> {
    const warnings: string[] = [];
    const core = out.core.createA2AServer({
      card,
      executor: testExecutor(),
      compat: compatCard ? { card: compatCard } : {},
      logger: { error: () => undefined, warn: (m: string) => void warnings.push(m) },
    }) as unknown as { close(): Promise<void> };
    await core.close();
    return warnings;
  }
  const to03 = (card: Json) => convertCard(card, bundledIR("1.0.1"), bundledIR("0.3.0")).card as Json;

  it("a 0.3.0 card passed as compat.card with a bare `text` mode is named, with a media type to use", async () => {
    const card = testCard("1.0.1", { card: { defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"] } });
    const warnings = await startupWarnings(card, { ...to03(card), defaultInputModes: ["text"], skills: [{ id: "s", name: "S", description: "d", tags: ["t"], outputModes: ["data"] }] });
    expect(warnings).toEqual([
      'a2a: agent card (its 0.3.0 form) /defaultInputModes/0: "text" is not a media type (read as text/*); modes are media types (A2A 1.0.1 §4.4.1): did you mean "text/plain"?',
      'a2a: agent card (its 0.3.0 form) /skills/0/outputModes/0: "data" is not a media type (read as data/*); modes are media types (A2A 1.0.1 §4.4.1): did you mean "application/json"?',
    ]);
  });

  it("a mode the primary card has too (the converted card) is warned of once, by the primary", async () => {
    const card = testCard("1.0.1", { card: { defaultInputModes: ["text"], defaultOutputModes: ["text/plain"] } });
    const warnings = await startupWarnings(card, to03(card));
    expect(warnings.filter((w) => w.includes('/defaultInputModes/0: "text" is not a media type'))).toHaveLength(1);
    expect(warnings.some((w) => w.includes("0.3.0 form"))).toBe(false);
  });

  it("media types give no warning", async () => {
    const card = testCard("1.0.1", { card: { defaultInputModes: ["text/plain"], defaultOutputModes: ["application/json"] } });
    expect(await startupWarnings(card, to03(card))).toEqual([]);
  });
});

describe("generate --card --compat 0.3.0: the converted card's modes", () => {
  it("each warning names the project's card and its converted form (compat/a2a-0.3.0/card.ts), once", () => {
    const dir = tempDir();
    const card = {
      name: "Echo",
      description: "echoes",
      supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "echoes", tags: ["echo"], inputModes: ["data"] }],
    };
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify(card, null, 2));
    const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin.cjs"), "generate", "--spec", "1.0.1", "--compat", "0.3.0", "--card", "agent-card.json", "--out", "a2a", "--quiet"], { cwd: dir, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("warning:"));
    expect(lines).toEqual([
      'warning: agent-card.json (and its converted form, compat/a2a-0.3.0/card.ts): /defaultInputModes/0: "text" is not a media type (read as text/*); modes are media types (A2A 1.0.1 §4.4.1): did you mean "text/plain"?',
      'warning: agent-card.json (and its converted form, compat/a2a-0.3.0/card.ts): /skills/0/inputModes/0: "data" is not a media type (read as data/*); modes are media types (A2A 1.0.1 §4.4.1): did you mean "application/json"?',
    ]);
  }, 60_000);
});
