import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cardProblems, CardError, checkCard } from "../../src/card/check.js";
import { closestName } from "../../src/closest-name.js";
import { bundledIR } from "../../src/load/protocol.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * The agent card is checked like code at generate time (issue 14): the fields a version's AgentCard
 * declares are those of its schema (schema/specification-1.0.1.md §4.4.1 AgentCard; §5.5 of 0.3.0's), and
 * the generated `card.ts` is typed with the closed model, so every field the schema does not declare is
 * an error here, named with its pointer, instead of a tsc error inside generated/card.ts.
 */
const v1 = bundledIR("1.0.1");
const v03 = bundledIR("0.3.0");
const CLI = join(ROOT, "dist", "bin.cjs");

const card1 = () => ({
  name: "Echo",
  description: "echoes",
  supportedInterfaces: [{ url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "echoes", tags: ["echo"] }],
});

const card03 = () => ({
  protocolVersion: "0.3.0",
  name: "Echo",
  description: "echoes",
  url: "http://127.0.0.1:3000/",
  preferredTransport: "JSONRPC",
  version: "1.0.0",
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [{ id: "echo", name: "Echo", description: "echoes", tags: ["echo"] }],
});

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("card check", () => {
  it("a valid card has no problem, in either version", () => {
    expect(cardProblems(v1, card1())).toEqual([]);
    expect(cardProblems(v03, card03())).toEqual([]);
  });

  it("a misspelled field names the closest known one (documentationURL → documentationUrl), nested ones too", () => {
    const card = { ...card1(), documentationURL: "https://example.com", capabilities: { streaming: true, pushNotifcations: false } };
    expect(cardProblems(v1, card)).toEqual([
      { pointer: "/capabilities/pushNotifcations", message: 'unknown field "pushNotifcations"; did you mean "pushNotifications"?', suggestion: "pushNotifications" },
      { pointer: "/documentationURL", message: 'unknown field "documentationURL"; did you mean "documentationUrl"?', suggestion: "documentationUrl" },
    ]);
  });

  it("a field of another version says which versions have it (protocolVersion, url, preferredTransport in a 1.0.1 card)", () => {
    const card = { ...card1(), protocolVersion: "1.0", url: "http://127.0.0.1:3000/", preferredTransport: "JSONRPC" };
    const problems = cardProblems(v1, card);
    expect(problems.map((p) => [p.pointer, p.message])).toEqual([
      ["/preferredTransport", '"preferredTransport" is a field of the A2A 0.2.4–0.3.0 agent card, not of 1.0.1'],
      ["/protocolVersion", '"protocolVersion" is a field of the A2A 0.2.5–0.3.0 agent card, not of 1.0.1'],
      ["/url", '"url" is a field of the A2A 0.1.0–0.3.0 agent card, not of 1.0.1'],
    ]);
    // And the other way: 1.0's supportedInterfaces in a 0.3.0 card.
    expect(cardProblems(v03, { ...card03(), supportedInterfaces: [] }).map((p) => p.message)).toEqual([
      '"supportedInterfaces" is a field of the A2A 1.0.1 agent card, not of 0.3.0',
    ]);
  });

  it("a field no version has lists the fields that exist there", () => {
    const card = card1();
    (card.skills[0] as Record<string, unknown>).colour = "blue";
    expect(cardProblems(v1, card)).toEqual([
      { pointer: "/skills/0/colour", message: 'unknown field "colour"; the fields here are: id, name, description, tags, examples, inputModes, outputModes, securityRequirements' },
    ]);
  });

  it("every problem is listed (no 'and 7 more'), with the conversion command for another version's card", () => {
    const card = { ...card03(), documentationURL: "x", capabilities: { streaming: "yes", stateTransitionHistory: true } };
    let error: unknown;
    try {
      checkCard(v1, card, "agent-card.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CardError);
    const { message, problems, cardVersion, exitCode } = error as CardError;
    expect(exitCode).toBe(2);
    expect(cardVersion).toBe("0.3.0");
    expect(problems.length).toBe(7);
    const lines = message.split("\n");
    expect(lines[0]).toBe("agent-card.json: not a valid A2A 1.0.1 agent card, 7 problems:");
    expect(lines.slice(1, 8)).toEqual([
      '  at /capabilities/stateTransitionHistory: "stateTransitionHistory" is a field of the A2A 0.1.0–0.3.0 agent card, not of 1.0.1',
      "  at /capabilities/streaming: expected boolean, got string",
      '  at /documentationURL: unknown field "documentationURL"; did you mean "documentationUrl"?',
      '  at /preferredTransport: "preferredTransport" is a field of the A2A 0.2.4–0.3.0 agent card, not of 1.0.1',
      '  at /protocolVersion: "protocolVersion" is a field of the A2A 0.2.5–0.3.0 agent card, not of 1.0.1',
      '  at /supportedInterfaces: required property "supportedInterfaces" is missing',
      '  at /url: "url" is a field of the A2A 0.1.0–0.3.0 agent card, not of 1.0.1',
    ]);
    expect(lines[8]).toBe("It looks like an A2A 0.3.0 card: convert it with `a2a-codegen card --from 0.3.0 --to 1.0.1 agent-card.json`");
  });

  it("closestName: same letters in another case first, then a small edit distance, else nothing", () => {
    expect(closestName("documentationURL", ["documentationUrl", "description"])).toBe("documentationUrl");
    expect(closestName("skils", ["skills", "name"])).toBe("skills");
    expect(closestName("colour", ["id", "name", "tags"])).toBeUndefined();
  });

  it("generate --card: the card file, the pointer, the closest field; exit 2 and nothing written", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent-card.json"), JSON.stringify({ ...card1(), documentationURL: "x" }, null, 2));
    const r = run(["generate", "--card", "agent-card.json", "--out", "a2a"], dir);
    expect(r.stderr).toBe(
      'a2a-codegen: error: agent-card.json at /documentationURL: not a valid A2A 1.0.1 agent card: /documentationURL: unknown field "documentationURL"; did you mean "documentationUrl"?\n',
    );
    expect(r.code).toBe(2);
  });
});

describe("moving a scaffolded project to another spec version (the scaffold README's steps)", () => {
  it("generate after changing spec names the card command; running it makes generate pass", () => {
    const work = tempDir();
    const init = run(["init", "agent", "--spec", "0.3.0", "--framework", "node"], work);
    expect(init.code, init.stderr).toBe(0);
    const dir = join(work, "agent");
    const config = JSON.parse(readFileSync(join(dir, "a2a-codegen.config.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ ...config, spec: "1.0.1" }, null, 2));

    const failed = run(["generate"], dir);
    expect(failed.code).toBe(2);
    const command = /convert it with `(a2a-codegen card [^`]+)`/.exec(failed.stderr)?.[1];
    expect(command).toBe("a2a-codegen card --from 0.3.0 --to 1.0.1 agent-card.json");

    const converted = run((command as string).split(" ").slice(1), dir);
    expect(converted.code, converted.stderr).toBe(0);
    expect(converted.stdout).toMatch(/^agent-card\.json: converted from A2A 0\.3\.0 to 1\.0\.1$/m);
    const card = JSON.parse(readFileSync(join(dir, "agent-card.json"), "utf8")) as Record<string, unknown>;
    // The 0.3.0 scaffold serves the three bindings (its url + preferredTransport, additionalInterfaces): all carried over.
    expect(card.supportedInterfaces).toEqual([
      { url: "http://127.0.0.1:3000/", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://127.0.0.1:3000/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "127.0.0.1:50051", protocolBinding: "GRPC", protocolVersion: "1.0" },
    ]);
    expect(card).not.toHaveProperty("url");
    expect(card).not.toHaveProperty("additionalInterfaces");
    expect(card).not.toHaveProperty("protocolVersion");

    const regenerated = run(["generate"], dir);
    expect(regenerated.code, regenerated.stderr).toBe(0);
    expect(regenerated.stdout).toMatch(/The spec changed\. A2A 0\.3\.0 → 1\.0\.1/);
    expect(readFileSync(join(dir, "generated", "card.ts"), "utf8")).toMatch(/supportedInterfaces/);
  }, 120_000);
});
