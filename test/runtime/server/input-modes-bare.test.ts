/**
 * Issue 29 item 2: input and output modes are media types (specification-1.0.1.md §4.4.1 AgentCard
 * `defaultInputModes`: "Supported media types for input"), but 0.1.0's schema default and many real cards
 * (the conformance kit's reference agents) say bare `text`. Such a mode is read as `type/*` (docs/interop.md,
 * "Input modes that are not media types"): a text part is served, not refused with ContentTypeNotSupported
 * (-32005, §3.3.2); the server warns at startup and `generate --card` warns, naming the mode and suggesting a
 * media type (`text` → `text/plain`).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptsMediaType, modeWarnings } from "../../../src/runtime/tasks/input-modes.js";
import { ROOT, tempDir } from "../../support/project.js";
import { rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;

describe("a bare type as a mode", () => {
  it("is read as type/*: `text` accepts text/plain and text/markdown, not application/json", () => {
    expect(acceptsMediaType(["text"], "text/plain")).toBe(true);
    expect(acceptsMediaType(["Text"], "text/markdown; charset=utf-8")).toBe(true);
    expect(acceptsMediaType(["text"], "application/json")).toBe(false);
    expect(acceptsMediaType(["image"], "image/png")).toBe(true);
  });

  it("is named in a warning with a media type to use instead; media types give none", () => {
    const warnings = modeWarnings({ defaultInputModes: ["text", "text/plain"], defaultOutputModes: ["image/*"], skills: [{ inputModes: ["data"] }] });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('/defaultInputModes/0: "text" is not a media type');
    expect(warnings[0]).toContain('did you mean "text/plain"?');
    expect(warnings[1]).toContain('/skills/0/inputModes/0: "data" is not a media type');
    expect(warnings[1]).toContain('"application/json"');
  });
});

for (const version of ["0.3.0", "1.0.1"]) {
  describe(`${version}: a card with defaultInputModes ["text"]`, () => {
    let server: RunningServer;
    const warnings: string[] = [];
    beforeAll(async () => {
      server = await startServer(version, "node", {
        card: { defaultInputModes: ["text"], defaultOutputModes: ["text"] },
        options: { logger: { error: () => undefined, warn: (m: string) => void warnings.push(m) } },
      });
    });
    afterAll(async () => server.close());

    it("serves a text message (no -32005)", async () => {
      const v1 = version === "1.0.1";
      const message = v1
        ? { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "hello" }] }
        : { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text: "hello" }] };
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: v1 ? "SendMessage" : "message/send", params: { message } }), {
        "content-type": "application/json",
        "a2a-version": v1 ? "1.0" : "0.3",
      });
      expect((r.json as Json).error, r.text).toBeUndefined();
      expect((r.json as Json).result).toBeDefined();
    });

    it("refuses a data part still (text does not cover application/json)", async () => {
      const v1 = version === "1.0.1";
      const message = v1
        ? { role: "ROLE_USER", messageId: "m-2", parts: [{ data: { a: 1 } }] }
        : { kind: "message", role: "user", messageId: "m-2", parts: [{ kind: "data", data: { a: 1 } }] };
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 2, method: v1 ? "SendMessage" : "message/send", params: { message } }), {
        "content-type": "application/json",
        "a2a-version": v1 ? "1.0" : "0.3",
      });
      expect(((r.json as Json).error as Json)?.code, r.text).toBe(-32005);
    });

    it("warns at startup naming each mode and suggesting text/plain", () => {
      expect(warnings.filter((w) => w.includes('"text" is not a media type') && w.includes('"text/plain"'))).toHaveLength(2);
      expect(warnings.some((w) => w.includes("/defaultInputModes/0"))).toBe(true);
      expect(warnings.some((w) => w.includes("/defaultOutputModes/0"))).toBe(true);
    });
  });
}

describe("generate --card warns about a mode that is not a media type", () => {
  it("names the card file, the pointer and a suggestion, and still generates (exit 0)", () => {
    const dir = tempDir();
    const card = {
      name: "Echo",
      description: "echoes",
      supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      version: "1.0.0",
      capabilities: { streaming: true },
      defaultInputModes: ["text"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "echo", name: "Echo", description: "echoes", tags: ["echo"] }],
    };
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify(card, null, 2));
    const r = spawnSync(process.execPath, [join(ROOT, "dist", "bin.cjs"), "generate", "--card", "agent-card.json", "--out", "a2a", "--quiet"], { cwd: dir, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: agent-card.json: /defaultInputModes/0: "text" is not a media type');
    expect(r.stderr).toContain('did you mean "text/plain"?');
  }, 60_000);
});
