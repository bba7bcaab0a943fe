import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cardProblems } from "../../src/card/check.js";
import { convertCard } from "../../src/card/convert.js";
import { bundledIR } from "../../src/load/protocol.js";
import { corpusRows, readCorpusDocument } from "../support/corpus.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * Agent cards converted between 0.3.0 and 1.0.1 (src/card/convert.ts). The shapes are the specifications':
 * schema/specification-0.3.0.md §5.5 (AgentCard: url, preferredTransport, additionalInterfaces,
 * protocolVersion, security) against schema/specification-1.0.1.md §4.4.1 (AgentCard: supportedInterfaces,
 * securityRequirements) and §4.5 (SecurityScheme as a oneof). Every converted card is checked with the
 * same check as generate (schema and unknown fields).
 */
const v03 = bundledIR("0.3.0");
const v1 = bundledIR("1.0.1");
const CLI = join(ROOT, "dist", "bin.cjs");

describe("card conversion 0.3.0 → 1.0.1 on the corpus's real 0.3.0 cards", () => {
  const rows = corpusRows().filter((r) => r.kind === "card" && r.version === "0.3.0");

  it("every card that is a valid 0.3.0 card converts to a valid 1.0.1 card; every other one had problems as 0.3.0 already", () => {
    expect(rows.length).toBeGreaterThan(200);
    let converted = 0;
    const failures: string[] = [];
    for (const row of rows) {
      const card = readCorpusDocument(row.file);
      const { card: out } = convertCard(card, v03, v1);
      const after = cardProblems(v1, out);
      if (after.length === 0) {
        converted++;
        continue;
      }
      // Not convertible: only a card that is not a valid 0.3.0 card, by the corpus's label and by our check.
      const before = cardProblems(v03, card);
      if (row.status === "valid" || before.length === 0) failures.push(`${row.file}: ${after.map((p) => `${p.pointer} ${p.message}`).join("; ")}`);
    }
    expect(failures).toEqual([]);
    const valid = rows.filter((r) => r.status === "valid").length;
    expect(converted).toBeGreaterThanOrEqual(valid);
    console.log(`card conversion: ${converted} of ${rows.length} real 0.3.0 cards are valid 1.0.1 cards after conversion (${valid} were labelled valid 0.3.0)`);
  });

  it("converted back to 0.3.0, every converted card is a valid 0.3.0 card with the same name, url and skills", () => {
    for (const row of rows.filter((r) => r.status === "valid")) {
      const card = readCorpusDocument(row.file) as Record<string, unknown>;
      const up = convertCard(card, v03, v1).card;
      const down = convertCard(up, v1, v03).card;
      expect(cardProblems(v03, down), row.file).toEqual([]);
      expect(down.name).toEqual(card.name);
      expect(down.url).toEqual(card.url);
      expect((down.skills as unknown[]).length).toBe((card.skills as unknown[]).length);
    }
  });
});

describe("card conversion from 0.2.x on the corpus's real 0.2.x cards", () => {
  it("every valid 0.2.x card converts to a valid 0.3.0 card (protocolVersion set) and to a valid 1.0.1 card", () => {
    const rows = corpusRows().filter((r) => r.kind === "card" && r.version.startsWith("0.2."));
    expect(rows.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const row of rows) {
      const from = bundledIR(row.version);
      const card = readCorpusDocument(row.file);
      if (cardProblems(from, card).length > 0) continue;
      for (const to of [v03, v1]) {
        const problems = cardProblems(to, convertCard(card, from, to).card);
        if (problems.length > 0) failures.push(`${row.file} → ${to.specVersion}: ${problems.map((p) => `${p.pointer} ${p.message}`).join("; ")}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("card conversion: what moves where", () => {
  const card03 = {
    protocolVersion: "0.3.0",
    name: "Agent",
    description: "d",
    url: "https://agent.example/a2a",
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: "https://agent.example/a2a", transport: "JSONRPC" },
      { url: "https://agent.example/rest", transport: "HTTP+JSON" },
    ],
    version: "1.0.0",
    capabilities: { streaming: true, stateTransitionHistory: true },
    supportsAuthenticatedExtendedCard: true,
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    securitySchemes: {
      key: { type: "apiKey", in: "header", name: "X-Key" },
      oauth: {
        type: "oauth2",
        flows: {
          authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: { read: "read" } },
          clientCredentials: { tokenUrl: "https://t", scopes: {} },
        },
      },
      mtls: { type: "mutualTLS" },
    },
    security: [{ key: [] }, { oauth: ["read"] }],
    skills: [{ id: "s", name: "S", description: "d", tags: [], security: [{ key: [] }] }],
  };

  it("0.3.0 → 1.0.1: interfaces, security, the extended card flag, the wrapped security schemes; what is dropped is noted", () => {
    const { card, notes } = convertCard(card03, v03, v1);
    expect(cardProblems(v1, card)).toEqual([]);
    expect(card.supportedInterfaces).toEqual([
      { url: "https://agent.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "https://agent.example/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ]);
    expect(card.securityRequirements).toEqual([{ schemes: { key: { list: [] } } }, { schemes: { oauth: { list: ["read"] } } }]);
    expect((card.skills as Array<Record<string, unknown>>)[0]?.securityRequirements).toEqual([{ schemes: { key: { list: [] } } }]);
    expect(card.capabilities).toEqual({ streaming: true, extendedAgentCard: true });
    expect(card.securitySchemes).toEqual({
      key: { apiKeySecurityScheme: { location: "header", name: "X-Key" } },
      oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: "https://a", tokenUrl: "https://t", scopes: { read: "read" } } } } },
      mtls: { mtlsSecurityScheme: {} },
    });
    expect(notes).toEqual([
      '/protocolVersion: now supportedInterfaces[].protocolVersion "1.0", the version the regenerated agent speaks',
      '/capabilities/stateTransitionHistory: dropped: AgentCapabilities has no "stateTransitionHistory" in A2A 1.0.1',
      "/securitySchemes/oauth/flows/clientCredentials: dropped: A2A 1.0.1 allows one of authorizationCode, clientCredentials; kept authorizationCode",
    ]);
  });

  it("1.0.1 → 0.3.0: the interface of 0.3 becomes url, the rest additionalInterfaces; tags are added back", () => {
    const up = convertCard(card03, v03, v1).card;
    const interfaces = [{ url: "https://agent.example/v1", protocolBinding: "JSONRPC", protocolVersion: "1.0" }, { url: "https://agent.example/v03", protocolBinding: "JSONRPC", protocolVersion: "0.3" }];
    const { card } = convertCard({ ...up, supportedInterfaces: interfaces }, v1, v03);
    expect(cardProblems(v03, card)).toEqual([]);
    expect(card.url).toBe("https://agent.example/v03");
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.additionalInterfaces).toEqual([
      { url: "https://agent.example/v1", transport: "JSONRPC" },
      { url: "https://agent.example/v03", transport: "JSONRPC" },
    ]);
    expect(card.supportsAuthenticatedExtendedCard).toBe(true);
    expect(card.security).toEqual([{ key: [] }, { oauth: ["read"] }]);
    expect((card.securitySchemes as Record<string, unknown>).key).toEqual({ in: "header", name: "X-Key", type: "apiKey" });
    expect((card.securitySchemes as Record<string, unknown>).mtls).toEqual({ type: "mutualTLS" });
  });
});

describe("a2a-codegen card", () => {
  const run = (args: string[], cwd: string) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8" });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const write = (dir: string, card: unknown) => writeFileSync(join(dir, "agent-card.json"), JSON.stringify(card, null, 2));
  const minimal03 = { protocolVersion: "0.3.0", name: "A", description: "d", url: "http://127.0.0.1:3000/", version: "1", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] };

  it("converts in place, or prints with --stdout; --from is detected when not given", () => {
    const dir = tempDir();
    write(dir, minimal03);
    const printed = run(["card", "--to", "1.0.1", "--stdout"], dir);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stderr).toMatch(/^agent-card\.json: converted from A2A 0\.3\.0 to 1\.0\.1$/m);
    expect(JSON.parse(printed.stdout)).toHaveProperty("supportedInterfaces");
    expect(JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8"))).toEqual(minimal03); // --stdout writes nothing
    const inPlace = run(["card", "--from", "0.3.0", "--to", "1.0.1", "agent-card.json"], dir);
    expect(inPlace.code, inPlace.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8"))).toEqual(JSON.parse(printed.stdout));
    expect(run(["card", "--to", "1.0.1"], dir).stdout).toMatch(/agent-card\.json: already a valid A2A 1\.0\.1 agent card/);
  });

  it("refuses a misspelled field before the conversion would drop it, and an unknown version; writes nothing", () => {
    const dir = tempDir();
    write(dir, { ...minimal03, documentationURL: "x" });
    const typo = run(["card", "--from", "0.3.0", "--to", "1.0.1"], dir);
    expect(typo.stderr).toMatch(/agent-card\.json: a field is misspelled for A2A 0\.3\.0; fix it first, or the conversion would drop it:\n {2}at \/documentationURL: unknown field "documentationURL"; did you mean "documentationUrl"\?/);
    expect(typo.code).toBe(2);
    const unknown = run(["card", "--from", "0.4.0", "--to", "1.0.1"], dir);
    expect(unknown.stderr).toMatch(/--from: unknown spec version "0\.4\.0"; bundled versions: 0\.1\.0, .*1\.0\.1/);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8"))).toHaveProperty("documentationURL");
  });

  it("a card that would still be invalid is not written; the problems are listed with their pointers", () => {
    const dir = tempDir();
    const { defaultInputModes: _dropped, ...incomplete } = minimal03;
    write(dir, incomplete);
    const r = run(["card", "--from", "0.3.0", "--to", "1.0.1"], dir);
    expect(r.stderr).toMatch(/agent-card\.json: converted from A2A 0\.3\.0, it is still not a valid A2A 1\.0\.1 agent card \(1 problem\); as an A2A 0\.3\.0 card it has 1 problem already/);
    expect(r.stderr).toMatch(/at \/defaultInputModes: required property "defaultInputModes" is missing/);
    expect(r.code).toBe(2);
    expect(JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8"))).toEqual(incomplete);
  });
});
