import { describe, expect, it } from "vitest";
import { rewrite, V03, V10 } from "./support.js";

/** The body of a rewritten snippet (after its two import lines). */
function body(code: string, from = "0.3.0", to = "1.0.1"): string {
  return rewrite(code, from, to).after.split("\n").slice(2).join("\n");
}

describe("migrate 0.3.0 → 1.0.1: one rule at a time, each from the version mapping", () => {
  it("a text part loses its `kind` tag: 1.0.1 parts are a oneof told apart by the field present (1.0.1 §4.1.6)", () => {
    expect(body(`${V03}const p: M.Part = { kind: "text", text: "hi" };\n`)).toBe(`const p: M.Part = { text: "hi" };\n`);
  });

  it("a file part's nested `file` moves up: uri → url, mimeType → mediaType, name → filename (1.0.1 §4.1.6)", () => {
    const out = body(`${V03}const p: M.Part = { kind: "file", file: { uri: "https://x/y.txt", mimeType: "text/plain", name: "y.txt" } };\n`);
    expect(out).toBe(`const p: M.Part = { url: "https://x/y.txt", mediaType: "text/plain", filename: "y.txt" };\n`);
  });

  it("a file part with bytes becomes a raw part (1.0.1 §4.1.6)", () => {
    const out = body(`${V03}const parts: M.Part[] = [\n  {\n    kind: "file",\n    file: { bytes: "aGk=", mimeType: "text/plain" },\n  },\n];\n`);
    expect(out).toBe(`const parts: M.Part[] = [\n  {\n    raw: "aGk=", mediaType: "text/plain",\n  },\n];\n`);
  });

  it("a data part keeps its data and loses its tag (1.0.1 §4.1.6)", () => {
    expect(body(`${V03}const p: M.DataPart = { kind: "data", data: { n: 1 } };\n`)).toBe(`const p: M.DataPart = { data: { n: 1 } };\n`);
  });

  it("a message loses `kind` and spells its role as the proto enum (1.0.1 §4.1.4, §4.1.5, §5.5)", () => {
    const out = body(`${V03}const m: M.Message = {\n  kind: "message",\n  messageId: "1",\n  role: "user",\n  parts: [{ kind: "text", text: "hi" }],\n};\n`);
    expect(out).toBe(`const m: M.Message = {\n  messageId: "1",\n  role: "ROLE_USER",\n  parts: [{ text: "hi" }],\n};\n`);
  });

  it("task states are spelt as the proto enum, in literals, comparisons and switch cases (1.0.1 §4.1.3, §5.5)", () => {
    const out = body(
      `${V03}const done: M.TaskState[] = ["completed", 'failed'];\n` +
        `export function f(t: M.Task): number {\n  if (t.status.state === "input-required") return 1;\n  switch (t.status.state) {\n    case "working":\n      return 2;\n  }\n  return done.length;\n}\n`,
    );
    expect(out).toContain(`const done: M.TaskState[] = ["TASK_STATE_COMPLETED", 'TASK_STATE_FAILED'];`);
    expect(out).toContain(`if (t.status.state === "TASK_STATE_INPUT_REQUIRED") return 1;`);
    expect(out).toContain(`case "TASK_STATE_WORKING":`);
  });

  it("`part.kind === …` checks become presence checks, and reads of the moved fields follow (1.0.1 §4.1.6)", () => {
    const out = body(
      `${V03}export function names(parts: M.Part[]): string[] {\n  const out: string[] = [];\n  for (const part of parts) {\n    if (part.kind === "file") out.push(part.file.name ?? "");\n    if (part.kind !== "text") continue;\n    out.push(part.text);\n  }\n  return out;\n}\n`,
    );
    expect(out).toContain(`if ("raw" in part || "url" in part) out.push(part.filename ?? "");`);
    expect(out).toContain(`if (!("text" in part)) continue;`);
  });

  it("a switch on a part's `kind` becomes `switch (true)` with presence cases, by which TypeScript narrows alike (1.0.1 §4.1.6)", () => {
    const out = body(
      `${V03}export function show(part: M.Part): string {
  switch (part.kind) {
    case "text":
      return part.text;
    case "file":
      return part.file.name ?? "";
    default:
      return "data";
  }
}
`,
    );
    expect(out).toBe(
      `export function show(part: M.Part): string {
  switch (true) {
    case "text" in part:
      return part.text;
    case "raw" in part || "url" in part:
      return part.filename ?? "";
    default:
      return "data";
  }
}
`,
    );
  });

  it("the guard of a member 1.0.1 does not have becomes its presence test, and its import goes (1.0.1 §4.1.6)", () => {
    const code = `import { isFilePart, isTextPart } from "../../generated/a2a-0.3.0/models.js";\nimport type { Part } from "../../generated/a2a-0.3.0/models.js";\nexport const files = (parts: Part[]) => parts.filter((p) => isFilePart(p) && !isTextPart(p));\n`;
    const out = rewrite(code, "0.3.0", "1.0.1").after;
    expect(out).toBe(`import { isTextPart } from "../../generated/a2a-1.0.1/models.js";\nimport type { Part } from "../../generated/a2a-1.0.1/models.js";\nexport const files = (parts: Part[]) => parts.filter((p) => ("raw" in p || "url" in p) && !isTextPart(p));\n`);
  });

  it("`blocking` becomes `returnImmediately` with the opposite meaning (1.0.1 §3.2.2)", () => {
    const out = body(`${V03}const c: M.MessageSendConfiguration = { blocking: true, acceptedOutputModes: [] };\nexport const d = (b: boolean): M.MessageSendConfiguration => ({ blocking: b });\n`);
    expect(out).toContain(`const c: M.SendMessageConfiguration = { returnImmediately: false, acceptedOutputModes: [] };`);
    expect(out).toContain(`({ returnImmediately: !(b) })`);
  });

  it("renamed types and client methods take their 1.0.1 names, from the methods the mapping pairs (1.0.1 §3.1)", () => {
    const out = body(`${V03}export async function f(c: A2AClient, p: M.MessageSendParams) {\n  await c.sendMessage(p);\n  for await (const e of c.taskResubscription({ id: "t" })) void e;\n}\n`);
    expect(out).toContain(`p: M.SendMessageRequest`);
    expect(out).toContain(`c.subscribeToTask({ id: "t" })`);
  });

  it("import paths move to the new version's folder", () => {
    const out = rewrite(`${V03}export type P = M.Part;\n`, "0.3.0", "1.0.1").after;
    expect(out.split("\n").slice(0, 2).join("\n")).toBe(V10.trimEnd());
  });

  it("a send's result is wrapped by what it is: `r.kind === \"task\"` → `\"task\" in r`, and reads go through the wrapper (1.0.1 §3.1.1, §9.4.1)", () => {
    const out = body(
      `${V03}export async function f(c: A2AClient, p: M.MessageSendParams): Promise<string> {\n  const r = await c.sendMessage(p);\n  if (r.kind === "task") return r.status.state;\n  return r.messageId;\n}\n`,
    );
    expect(out).toContain(`if ("task" in r) return r.task.status.state;`);
    expect(out).toContain(`return r.message.messageId;`);
  });

  it("a result passed whole to the generated client's own helpers is left as it is; passed elsewhere, it is reported", () => {
    const result = rewrite(
      `${V03}export async function f(c: A2AClient, p: M.MessageSendParams, keep: (x: unknown) => void) {\n  const r = await c.sendMessage(p);\n  keep(A2AClient.unwrap(r));\n  keep(r);\n}\n`,
      "0.3.0",
      "1.0.1",
    );
    expect(result.unchanged).toEqual([expect.objectContaining({ line: 6, old: "r: Task | Message", new: "{ task } | { message }" })]);
  });

  it("streamed events are wrapped too: `statusUpdate`, `artifactUpdate` (1.0.1 §3.1.2)", () => {
    const out = body(
      `${V03}export async function f(c: A2AClient, p: M.MessageSendParams) {\n  for await (const e of c.sendStreamingMessage(p)) {\n    if (e.kind === "artifact-update") console.log(e.artifact.artifactId);\n    else if (e.kind === "status-update" && e.final) break;\n  }\n}\n`,
    );
    expect(out).toContain(`if ("artifactUpdate" in e) console.log(e.artifactUpdate.artifact.artifactId);`);
    expect(out).toContain(`else if ("statusUpdate" in e && e.statusUpdate.final) break;`);
  });

  it("a switch on a streamed event's `kind` tests its wrapper, and each case reads through it (1.0.1 §3.1.2)", () => {
    const out = body(
      `${V03}export async function f(c: A2AClient, p: M.MessageSendParams) {
  for await (const e of c.sendStreamingMessage(p)) {
    switch (e.kind) {
      case "status-update":
        console.log(e.status.state);
        break;
      case "artifact-update":
        console.log(e.artifact.artifactId);
        break;
    }
  }
}
`,
    );
    expect(out).toContain(`switch (true) {
      case "statusUpdate" in e:
        console.log(e.statusUpdate.status.state);`);
    expect(out).toContain(`case "artifactUpdate" in e:
        console.log(e.artifactUpdate.artifact.artifactId);`);
  });

  it("what it cannot change is reported with its line, the old and new shape and a hint (1.0.1 drops `final`, §3.1.2)", () => {
    const result = rewrite(`${V03}export const e: M.TaskStatusUpdateEvent = {\n  kind: "status-update",\n  taskId: "t",\n  contextId: "c",\n  status: { state: "working" },\n  final: false,\n};\n`, "0.3.0", "1.0.1");
    expect(result.after).toContain(`status: { state: "TASK_STATE_WORKING" },\n  final: false,`);
    expect(result.unchanged).toEqual([
      expect.objectContaining({ line: 8, old: "TaskStatusUpdateEvent.final", new: "(no TaskStatusUpdateEvent field)", hint: expect.stringContaining("1.0.1 has no such field") }),
    ]);
  });
});

describe("migrate 1.0.1 → 0.3.0: the same mapping, the other direction", () => {
  it("a text part gets its `kind` tag back, roles their short names (0.3.0 §6.5.1; 1.0.1 §5.5)", () => {
    const out = body(`${V10}const m: M.Message = { messageId: "1", role: "ROLE_AGENT", parts: [{ text: "hi" }] };\n`, "1.0.1", "0.3.0");
    expect(out).toBe(`const m: M.Message = { kind: "message", messageId: "1", role: "agent", parts: [{ kind: "text", text: "hi" }] };\n`);
  });
});

describe("migrate 1.0.1 → 0.3.0: fields move back into nested objects", () => {
  it("a url part becomes a file part with `file: { uri, mimeType }` (0.3.0 §6.5.2; 1.0.1 §4.1.6)", () => {
    const out = body(`${V10}const p: M.Part = { url: "https://x/y.txt", mediaType: "text/plain" };\n`, "1.0.1", "0.3.0");
    expect(out).toBe(`const p: M.Part = { kind: "file", file: { uri: "https://x/y.txt", mimeType: "text/plain" } };\n`);
  });

  it("a flat push config nests its fields in `pushNotificationConfig` (0.3.0 §6.10; 1.0.1 flattens it)", () => {
    const out = body(`${V10}const c: M.TaskPushNotificationConfig = {\n  taskId: "t",\n  url: "https://hook",\n  token: "s",\n};\n`, "1.0.1", "0.3.0");
    expect(out).toBe(`const c: M.TaskPushNotificationConfig = {\n  taskId: "t",\n  pushNotificationConfig: { url: "https://hook", token: "s" },\n};\n`);
  });
});

describe("a rewrite leaves everything else as it was", () => {
  it("code that touches no protocol shape is byte-identical, odd formatting and all", () => {
    const code = `${V03}// a comment\nconst   x = { kind:"text",  text : 'not a part' } ;\nexport   function  g ( a:string ){return a+ "completed"}\n\n\n/* trailing */`;
    const result = rewrite(code, "0.3.0", "1.0.1");
    // Only the import paths change.
    expect(result.after).toBe(V10 + code.slice(V03.length));
    expect(result.unchanged).toEqual([]);
  });

  it("is idempotent: the rewritten code, now importing 1.0.1, is left as it is", () => {
    const code = `${V03}export const m: M.Message = { kind: "message", messageId: "1", role: "user", parts: [{ kind: "text", text: "hi" }, { kind: "file", file: { uri: "u" } }] };\nexport const ok = (p: M.Part) => p.kind === "data";\n`;
    const once = rewrite(code, "0.3.0", "1.0.1").after;
    expect(once).not.toBe(code);
    const twice = rewrite(once, "0.3.0", "1.0.1");
    expect(twice.after).toBe(once);
    expect(twice.unchanged).toEqual([]);
  });
});
