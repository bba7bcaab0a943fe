/**
 * Issue 17, the CLI's side: exit 0 means correct, compiling code; anything else is exit 2 with one line
 * naming the file and the JSON pointer, never exit 70 (a crash) and never a stack trace. Each schema is
 * unusual but possible input (the generator tests check the code of the ones that generate).
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../support/project.js";
import { aliasChain, base, deeplyNested, protoKeyedDefinitionText, protoKeyedPropertyText, renamedCoreTypes } from "../support/unusual-schemas.js";

const CLI = join(ROOT, "dist", "bin.cjs");

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("CLI: unusual schemas are refused with exit 2, the file and the pointer", () => {
  const work = tempDir("a2a-codegen-cli-robust-");
  const cases: Array<{ name: string; file: string; text: () => string; message: RegExp }> = [
    {
      name: "a definition keyed __proto__",
      file: "proto-def",
      text: protoKeyedDefinitionText,
      message: /^a2a-codegen: error: proto-def\.json at \/definitions\/__proto__: definition name "__proto__" is not allowed/m,
    },
    {
      name: "a property keyed __proto__",
      file: "proto-prop",
      text: protoKeyedPropertyText,
      message: /^a2a-codegen: error: proto-prop\.json at \/definitions\/Message\/properties\/__proto__: property name "__proto__" is not allowed/m,
    },
    {
      name: "a $ref to a name on Object.prototype",
      file: "prototype-ref",
      text: () => {
        const s = base();
        (s.definitions.Message?.properties as Record<string, unknown>).extra = { $ref: "#/definitions/toString" };
        return JSON.stringify(s);
      },
      message: /at \/definitions\/Message\/properties\/extra\/\$ref: dangling \$ref "#\/definitions\/toString"/,
    },
    {
      name: "a schema nested 3,000 levels deep",
      file: "deep",
      text: () => JSON.stringify(deeplyNested(3000)),
      message: /at \/definitions\/Deep(\/items)+: the schema nests deeper than 128 levels here/,
    },
    {
      name: "a cycle of plain references",
      file: "alias-cycle",
      text: () => {
        const s = base();
        s.definitions.Ping = { $ref: "#/definitions/Pong" };
        s.definitions.Pong = { $ref: "#/definitions/Ping" };
        return JSON.stringify(s);
      },
      message: /at \/definitions\/Ping\/\$ref: definition "Ping" refers to itself through a cycle of plain references \(Ping → Pong → Ping\)/,
    },
    {
      name: "no definition plays the message's role",
      file: "no-message-role",
      text: () => {
        const s = renamedCoreTypes();
        (s.definitions.MessageSendParams?.properties as Record<string, unknown>).message = { type: "object" };
        return JSON.stringify(s);
      },
      message: /at \/definitions: no definition plays the role of the message, which the generated client and server need/,
    },
    {
      name: "a request named like a client member",
      file: "client-member",
      text: () => {
        const s = base();
        s.definitions.CallRequest = {
          ...(s.definitions.GetTaskRequest as object),
          properties: { ...(s.definitions.GetTaskRequest?.properties as object), method: { const: "tasks/call", type: "string" } },
        };
        return JSON.stringify(s);
      },
      message: /at \/definitions\/CallRequest: request "CallRequest" would be the client method "call", which the client already has/,
    },
    {
      name: "an error definition named like a class the client has",
      file: "error-class",
      text: () => {
        const s = base();
        s.definitions.TransportError = { type: "object", properties: { code: { const: -32099, type: "integer" }, message: { type: "string" } }, required: ["code", "message"] };
        return JSON.stringify(s);
      },
      message: /at \/definitions\/TransportError: error definition "TransportError" would be the client's error class "A2ATransportError", which the client already has/,
    },
    {
      name: "two error definitions that would be one error class",
      file: "error-twice",
      text: () => {
        const s = base();
        s.definitions.TaskNotFound = { ...(s.definitions.TaskNotFoundError as object), properties: { code: { const: -32099, type: "integer" }, message: { type: "string" } } };
        return JSON.stringify(s);
      },
      message: /would both be the client's error class "A2ATaskNotFoundError"/,
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const name = c.file;
      writeFileSync(join(work, `${name}.json`), c.text());
      const out = join(work, `out-${name}`);
      const r = run(["generate", "--schema", `${name}.json`, "--out", out], work);
      expect(r.stderr).toMatch(c.message);
      expect(r.stderr).toMatch(new RegExp(`^a2a-codegen: error: ${name}\\.json at /`, "m"));
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(existsSync(out)).toBe(false);
    });
  }

  it("a $ref chain of 1,500 links generates (it used to be exit 70, a stack overflow)", () => {
    writeFileSync(join(work, "chain.json"), JSON.stringify(aliasChain(1500)));
    const r = run(["generate", "--schema", "chain.json", "--out", join(work, "out-chain"), "--framework", "node"], work);
    expect(r.stderr).not.toMatch(/internal error|Maximum call stack/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1593 types/);
  });
});
