/**
 * The emitters, each called directly on a loaded IR (src/emit/*): what each writes, without the rest of
 * the pipeline (no formatting, no files). The end-to-end view is the snapshot and compile tests.
 */
import { describe, expect, it } from "vitest";
import { emitClient, clientMethodName } from "../../src/emit/client.js";
import { emitIndex, exportedNames } from "../../src/emit/index-file.js";
import { emitModels } from "../../src/emit/models.js";
import { emitProtocol } from "../../src/emit/protocol.js";
import { customMethodNames, emitServer } from "../../src/emit/server.js";
import { TemplateRenderer } from "../../src/emit/templates.js";
import { loadProtocol } from "../../src/load/protocol.js";

const templates = new TemplateRenderer();
const HEADER = "// header";
const v1 = loadProtocol({ spec: "1.0.1" }).ir;
const v03 = loadProtocol({ spec: "0.3.0" }).ir;

describe("emitModels", () => {
  it("1.0.1: the presence unions as named members over a shared base, with a guard each", async () => {
    const models = await emitModels(v1, templates, HEADER);
    expect(models.startsWith(`${HEADER}\n`)).toBe(true);
    // (Unformatted: prettier runs once at the end of the pipeline.)
    expect(models).toMatch(/^export type Part = \(?TextPart \| RawPart \| UrlPart \| DataPart\)?$/m);
    expect(models).toMatch(/^export interface PartBase \{$/m);
    for (const member of ["TextPart", "RawPart", "UrlPart", "DataPart"]) expect(models).toMatch(new RegExp(`^export interface ${member} extends PartBase \\{$`, "m"));
    expect(models).toMatch(/^export interface StreamResponseStatusUpdate \{$/m);
    expect(models).toMatch(/^export function isTextPart\(value: Part\): value is TextPart \{\n {2}return "text" in value;\n\}$/m);
    expect(models).toMatch(/^export const TaskStateValues = \[/m);
  });

  it("0.3.0: tagged unions keep their members and get tag guards; no named presence members", async () => {
    const models = await emitModels(v03, templates, HEADER);
    expect(models).toMatch(/^export type Part = \(?TextPart \| FilePart \| DataPart\)?$/m);
    expect(models).toMatch(/^export function isTextPart\(value: \{ readonly \["kind"\]\?: unknown \}\): value is TextPart \{$/m);
    expect(models).not.toMatch(/^export interface \w+ extends \w+ \{$/m);
  });
});

describe("emitProtocol", () => {
  it("the method table, the profile and the error codes of the version", () => {
    const protocol = emitProtocol(v1, templates, HEADER);
    expect(protocol).toMatch(/"SendMessage": \{/);
    expect(protocol).toContain('export const SPEC_VERSION = "1.0.1"');
    expect(protocol).toMatch(/A2A_PROFILE/);
    expect(protocol).toMatch(/VersionNotSupportedError: -32009/);
  });
});

describe("emitClient", () => {
  it("one method per protocol method, named from the IR method", () => {
    const client = emitClient(v1, templates, HEADER);
    for (const method of v1.methods) expect(client).toContain(`${clientMethodName(method)}(`);
    expect(clientMethodName({ method: "SendMessage", requestType: "SendMessageRpcRequest" })).toBe("sendMessage");
    expect(clientMethodName({ method: "message/send", requestType: "SendMessageRequest" })).toBe("sendMessage");
    expect(client).not.toMatch(/as unknown as/);
  });
});

describe("emitServer", () => {
  it("the core and one adapter per framework asked for, with the version's state type and custom methods", () => {
    const files = emitServer(v1, templates, HEADER, ["node"]);
    expect(Object.keys(files).sort()).toEqual(["server/core.ts", "server/node.ts"]);
    const core = files["server/core.ts"] as string;
    expect(core).toContain("export type TaskStateName = TaskStateInput<TaskStateOf<Models.Task>>;");
    expect(core).toContain("export type CustomMethodName = never;");
    expect(customMethodNames(v03)).toBe("never");
  });
});

describe("emitIndex", () => {
  it("re-exports every module, and explicitly each name a model shares with another module", () => {
    const index = emitIndex({ "models.ts": "export interface A2AClient {}\nexport type X = string;\n", "client.ts": "export class A2AClient {}\n" }, templates, HEADER);
    expect(index).toContain('export * from "./models.js";');
    expect(index).toContain('export { A2AClient } from "./client.js";');
    expect(exportedNames("export type { A, B as C } from './x.js';\nexport const D = 1;")).toEqual([
      { name: "D", typeOnly: false },
      { name: "A", typeOnly: true },
      { name: "C", typeOnly: true },
    ]);
  });
});
