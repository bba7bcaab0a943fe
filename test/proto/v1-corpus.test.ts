import { describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { protoToJsonSchema } from "../../src/proto/to-json-schema.js";
import { ownErrors, type OwnError } from "../../src/proto/inspect.js";
import { corpusRows, readCorpusDocument, type CorpusRow } from "../support/corpus.js";
import { ROOT } from "../support/project.js";

/**
 * The A2A 1.0 part of the real-world corpus (test/fixtures/corpus, rows with target_version "1.0": 93 agent
 * cards and 304 JSON-RPC documents) judged by a plain Ajv compiled from the schema the proto front end
 * derives from a2a-1.0.1.proto. Many documents are invalid; that is what the corpus is for. The test does
 * not fail on them: it writes what it finds into v1-corpus-report.md (counts, failure classes with a
 * verdict each: the document or our schema is wrong) and fails when the committed report is not what the
 * schema and corpus give today (`vitest -u` rewrites it after a reviewed change).
 */

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (o: object) => import("ajv").Ajv }).default;

const conversion = protoToJsonSchema(`${ROOT}/schema/a2a-1.0.1.proto`);
const definitions = conversion.schema.definitions as Record<string, Record<string, unknown>>;
const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: false });
ajv.addSchema(conversion.schema, "a2a");
const validator = (name: string) => {
  const v = ajv.getSchema(`a2a#/definitions/${name}`);
  if (!v) throw new Error(`no definition ${name}`);
  return v;
};
const variantValidator = (name: string, variant: number | undefined) => validator(variant === undefined ? name : `${name}/anyOf/${variant}`);

const METHODS = new Set(Object.keys(definitions).filter((d) => d.endsWith("RpcRequest")).map((d) => d.replace(/RpcRequest$/, "")));
const STREAMING = new Set(conversion.overlay.streamingMethods as string[]);
/** The corpus's "after:<method>" hints that use a 0.x name, as their 1.0 rpc. */
const V0_NAMES: Record<string, string> = { "message/send": "SendMessage", "message/stream": "SendStreamingMessage", "tasks/get": "GetTask", "tasks/cancel": "CancelTask" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Which definition a document is judged by: cards as AgentCard, requests by `method`, responses by shape. */
function targetOf(row: CorpusRow, doc: unknown): { definition: string; why: string } {
  if (row.kind === "card") return { definition: "AgentCard", why: "agent card" };
  if (!isObject(doc)) return { definition: "JSONRPCResponse", why: "not an object" };
  if ("method" in doc) {
    const method = String(doc.method);
    return METHODS.has(method) ? { definition: `${method}RpcRequest`, why: "request, by method" } : { definition: "A2ARequest", why: `request with a method 1.0 does not have` };
  }
  if ("error" in doc || !("result" in doc)) return { definition: "JSONRPCErrorResponse", why: "error response" };
  const hintName = row.method.replace(/^after:/, "");
  const hint = METHODS.has(hintName) ? hintName : V0_NAMES[hintName];
  const result = doc.result;
  const keys = isObject(result) ? Object.keys(result) : [];
  const has = (...k: string[]) => k.some((x) => keys.includes(x));
  const by = (method: string, why: string) => ({ definition: `${method}RpcResponse`, why });
  if (has("statusUpdate", "artifactUpdate")) return by("SendStreamingMessage", "result is a stream event");
  if (has("task", "message")) return by(hint !== undefined && STREAMING.has(hint) ? hint : "SendMessage", "result wraps a task or message");
  if (has("tasks")) return by("ListTasks", "result lists tasks");
  if (has("configs")) return by("ListTaskPushNotificationConfigs", "result lists push configs");
  if (has("url", "pushNotificationConfig")) return by(hint === "CreateTaskPushNotificationConfig" ? hint : "GetTaskPushNotificationConfig", "result is a push config");
  if (has("skills", "supportedInterfaces", "capabilities")) return by("GetExtendedAgentCard", "result is an agent card");
  const bare = has("status", "artifacts", "history") || has("role", "parts", "messageId");
  if (bare && hint !== undefined && ["SendMessage", "SendStreamingMessage", "SubscribeToTask", "GetTask", "CancelTask"].includes(hint)) return by(hint, "bare task/message result, by the preceding request");
  if (has("status", "artifacts", "history")) return by("GetTask", "result is a task");
  if (isObject(result) && keys.length === 0 && hint === "DeleteTaskPushNotificationConfig") return by(hint, "empty result");
  return by(hint ?? "SendMessage", hint ? "by the preceding request" : "unknown result shape: judged as SendMessage");
}

interface FailureClass {
  id: string;
  title: string;
  verdict: "document" | "document (non-canonical)" | "schema";
  why: string;
  matches: (e: OwnError, doc: unknown, definition: string) => boolean;
}

const valueAt = (doc: unknown, pointer: string): unknown =>
  pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((v, k) => (Array.isArray(v) ? v[Number(k)] : isObject(v) ? v[k] : undefined), doc);

/** In priority order: a document's primary class is the first that matches one of its errors. */
const CLASSES: FailureClass[] = [
  {
    id: "unknown-method",
    title: "method name that 1.0 does not have",
    verdict: "document",
    why: "§5.3 and §9.4 name the 11 JSON-RPC methods (the rpc names); these use 0.x names (`tasks/get`), draft names (`SetTaskPushNotificationConfig`, singular `ListTaskPushNotificationConfig`) or names of no version (`agent/getCard`).",
    matches: (e, _doc, definition) => definition === "A2ARequest" && e.keyword === "tag",
  },
  {
    id: "request-id",
    title: "request without an `id` (or with a null/object id)",
    verdict: "document",
    why: "§9.3: requests follow JSON-RPC 2.0 with an `id`; without one a request is a notification, which gets no response, so no A2A method can be called that way. Mostly SDK test fragments whose harness adds the id.",
    matches: (e) => e.definition.endsWith("RpcRequest") && ((e.keyword === "required" && e.params.missingProperty === "id") || e.pointer === "/id"),
  },
  {
    id: "envelope",
    title: "JSON-RPC envelope broken (`jsonrpc` missing or not \"2.0\", params not an object, neither result nor error)",
    verdict: "document",
    why: 'JSON-RPC 2.0 §4–5: `jsonrpc` is exactly "2.0", `params` is a structured value (ProtoJSON of the request message, an object), a response has `result` or `error`. Mostly deliberate negative tests of SDKs.',
    matches: (e) =>
      (e.definition.startsWith("JSONRPC") || e.definition.includes("Rpc")) &&
      (e.pointer === "/jsonrpc" || (e.keyword === "required" && ["jsonrpc", "params", "result", "error"].includes(String(e.params.missingProperty))) || e.keyword === "oneof") ||
      (e.pointer === "/params" && e.keyword === "type"),
  },
  {
    id: "enum-value",
    title: "enum value that is not a ProtoJSON enum name (`user`, `agent`, `completed`, `WORKING`, `TASK_STATE_CANCELLED`)",
    verdict: "document",
    why: "§5.5: enums are serialized as the proto value names (`ROLE_USER`, `TASK_STATE_COMPLETED`). Lower-case values are 0.x's; unprefixed or misspelled ones are of no version.",
    matches: (e) => e.keyword === "enum",
  },
  {
    id: "legacy-oneof",
    title: "oneof without its member: 0.x-style polymorphic objects (`SecurityScheme` as `{type: ...}`, a bare Task/Message as a SendMessage result, parts with `kind`/`file`)",
    verdict: "document",
    why: "1.0 wraps each polymorphic value in its oneof member (Appendix A.2.1; `SendMessageResponse`/`StreamResponse` are `{task}`/`{message}`/`{statusUpdate}`/`{artifactUpdate}`; `SecurityScheme` is `{apiKeySecurityScheme: ...}` etc.). These documents use the 0.3 shapes.",
    matches: (e) => e.keyword === "oneof",
  },
  {
    id: "stringlist-array",
    title: "security requirement scopes written as a plain array instead of `StringList` (`{\"list\": [...]}`)",
    verdict: "document",
    why: "`SecurityRequirement.schemes` is `map<string, StringList>`; in ProtoJSON (§5.5) a `StringList` is `{\"list\": [...]}`. Worth knowing: the examples come from a2a-go's JSON tests, i.e. an official SDK writes the array form — an interoperability gap between that SDK and the proto, not a schema bug.",
    matches: (e) => e.definition === "StringList" && e.keyword === "type",
  },
  {
    id: "null-for-unset",
    title: "`null` for an unset field",
    verdict: "document (non-canonical)",
    why: "ProtoJSON writers omit unset fields; ProtoJSON parsers also accept `null` as \"default value\". The schema describes what a writer emits and so rejects `null` (allowing it everywhere would make every generated type nullable). These documents come from Jackson/.NET serializers that write nulls.",
    matches: (e, doc) => e.keyword === "type" && valueAt(doc, e.pointer) === null,
  },
  {
    id: "interface-fields",
    title: "`AgentInterface` without `protocolVersion` (or `protocolBinding`)",
    verdict: "document",
    why: "Both are REQUIRED in a2a.proto (`AgentInterface`, §4.4.6); cards written against 1.0 drafts, where the interface had only `url` and a transport, omit them.",
    matches: (e) => e.definition === "AgentInterface" && e.keyword === "required",
  },
  {
    id: "push-config-shape",
    title: "push notification config in a draft shape (`pushNotificationConfig`/`config` nesting, `name`/`parent` resource names)",
    verdict: "document",
    why: "In 1.0.1 `CreateTaskPushNotificationConfig` takes a `TaskPushNotificationConfig` whose `url` (REQUIRED), `token`, `authentication` are top-level fields next to `taskId`/`id`; the nested `pushNotificationConfig` and AIP-style `parent`/`name` are from 1.0 drafts.",
    matches: (e) => e.definition.includes("PushNotificationConfig") && e.keyword === "required",
  },
  {
    id: "empty-required-array",
    title: "required array that is empty (`skills: []`, `defaultInputModes: []`, `tags: []`, `parts: []`)",
    verdict: "document",
    why: "§5.7: \"Arrays marked as required MUST contain at least one element.\" The schema says so with `minItems: 1`. Note that the text itself strays from this rule in §8.4.1 (an example card with `\"skills\": []`), and that `ListTasksResponse.tasks` is REQUIRED though an empty page is possible: there the rule, not the documents, is what is questionable.",
    matches: (e) => e.keyword === "minItems",
  },
  {
    id: "missing-required",
    title: "other REQUIRED field missing (`messageId`, `role`, `parts` of a Message; `taskId`/`contextId` of events; `Task.status`; request `id`/`message`; card fields)",
    verdict: "document",
    why: "Each is `(google.api.field_behavior) = REQUIRED` in a2a.proto, which §5.7 makes a MUST. Mostly SDK test fragments, examples that elide fields, and params wrapped in a different object (`params.request`).",
    matches: (e) => e.keyword === "required",
  },
  {
    id: "other-type",
    title: "value of the wrong JSON type",
    verdict: "document",
    why: "Wrong JSON types for the proto field (strings for objects, objects for strings); deliberate negative tests or plain mistakes.",
    matches: () => true,
  },
];

interface Judged {
  row: CorpusRow;
  definition: string;
  why: string;
  valid: boolean;
  errors: OwnError[];
  classes: string[];
}

function judgeCorpus(): Judged[] {
  return corpusRows()
    .filter((r) => r.version === "1.0")
    .map((row) => {
      const doc = readCorpusDocument(row.file);
      const { definition, why } = targetOf(row, doc);
      const valid = validator(definition)(doc) === true;
      const errors = valid ? [] : ownErrors(definitions, variantValidator, definition, doc);
      // Each error belongs to the first class that matches it; a document has the classes of its errors.
      const own = new Set(errors.map((e) => CLASSES.find((c) => c.matches(e, doc, definition))?.id));
      const classes = CLASSES.filter((c) => own.has(c.id)).map((c) => c.id);
      return { row, definition, why, valid, errors, classes };
    });
}

const kindOf = (j: Judged) => (j.row.kind === "card" ? "card" : j.definition.endsWith("RpcRequest") || j.definition === "A2ARequest" ? "request" : j.definition === "JSONRPCErrorResponse" ? "error response" : "success response");

function corpusReport(judged: Judged[]): string {
  const lines: string[] = [];
  const pass = judged.filter((j) => j.valid).length;
  lines.push("# A2A 1.0 corpus against the proto-derived schema", "");
  lines.push(
    "Generated by `test/proto/v1-corpus.test.ts` (run `vitest run test/proto -u` to rewrite it after a reviewed change); the test fails when",
    "this file is not what the schema and the corpus give. Schema: `protoToJsonSchema(schema/a2a-1.0.1.proto)`; validator: plain Ajv",
    "(`allErrors`, `strict: false`, `allowUnionTypes`, formats not asserted). Corpus: `test/fixtures/corpus`, the rows of `results.tsv` whose",
    "`target_version` is 1.0.",
    "",
    "**How a document is judged.** Cards against `AgentCard`; requests against `<method>RpcRequest` (a method 1.0 lacks: against `A2ARequest`);",
    "error responses against `JSONRPCErrorResponse`; success responses against `<method>RpcResponse`, the method read from the result's",
    "shape (`{statusUpdate}`/`{artifactUpdate}` → a stream event, `{task}`/`{message}` → SendMessage or the streaming rpc the corpus says",
    "preceded it, `{tasks}` → ListTasks, a push config → Get/CreateTaskPushNotificationConfig, a card → GetExtendedAgentCard, a bare task",
    "or message → the rpc the corpus says preceded it, else GetTask / SendMessage).",
    "",
    "**How a failure is explained.** Each object of a failing document is re-validated against its own definition (for a oneof, the",
    "variant whose member is present), and each error is kept by the object it belongs to (`src/proto/inspect.ts`). A document's classes",
    "are those of its errors; its *primary* class is the first in the table's order.",
    "",
  );
  lines.push(`**${pass} of ${judged.length} documents pass** (${judged.length - pass} fail).`, "");
  lines.push("| kind | documents | pass | fail |", "|---|---:|---:|---:|");
  for (const kind of ["card", "request", "success response", "error response"]) {
    const of = judged.filter((j) => kindOf(j) === kind);
    lines.push(`| ${kind} | ${of.length} | ${of.filter((j) => j.valid).length} | ${of.filter((j) => !j.valid).length} |`);
  }
  lines.push(`| **total** | **${judged.length}** | **${pass}** | **${judged.length - pass}** |`, "");
  lines.push("By the definition judged against:", "", "| definition | documents | pass | fail |", "|---|---:|---:|---:|");
  for (const def of [...new Set(judged.map((j) => j.definition))].sort()) {
    const of = judged.filter((j) => j.definition === def);
    lines.push(`| ${def} | ${of.length} | ${of.filter((j) => j.valid).length} | ${of.filter((j) => !j.valid).length} |`);
  }
  lines.push("", "## Failure classes", "");
  lines.push("| class | primary | with it | verdict: who is wrong | why |", "|---|---:|---:|---|---|");
  const failing = judged.filter((j) => !j.valid);
  for (const c of CLASSES) {
    const primary = failing.filter((j) => j.classes[0] === c.id).length;
    const any = failing.filter((j) => j.classes.includes(c.id)).length;
    lines.push(`| \`${c.id}\`: ${c.title} | ${primary} | ${any} | ${c.verdict} | ${c.why} |`);
  }
  const schemaWrong = CLASSES.filter((c) => c.verdict === "schema").map((c) => c.id);
  lines.push(
    "",
    `Primary classes add up to the ${failing.length} failures. ${schemaWrong.length === 0 ? "No class is a schema error: every failure inspected is the document's (samples below, checked against the specification text)." : `Schema errors: ${schemaWrong.join(", ")}.`}`,
    "",
  );
  lines.push("## Samples (first three of each primary class)", "");
  for (const c of CLASSES) {
    const of = failing.filter((j) => j.classes[0] === c.id).slice(0, 3);
    if (of.length === 0) continue;
    lines.push(`### \`${c.id}\``, "");
    for (const j of of) {
      const doc = readCorpusDocument(j.row.file);
      const mine = j.errors.filter((e) => CLASSES.find((k) => k.matches(e, doc, j.definition))?.id === c.id);
      lines.push(`- \`${j.row.file}\` (${j.definition}): ${mine.slice(0, 2).map(explain).join("; ")}`);
    }
    lines.push("");
  }
  lines.push("## Every failing document", "", "| document | judged as | primary class | other classes | first error of the primary class |", "|---|---|---|---|---|");
  for (const j of failing) {
    const doc = readCorpusDocument(j.row.file);
    const first = j.errors.find((e) => CLASSES.find((k) => k.matches(e, doc, j.definition))?.id === j.classes[0]) as OwnError;
    lines.push(`| \`${j.row.file}\` | ${j.definition} | ${j.classes[0]} | ${j.classes.slice(1).join(", ")} | ${explain(first).replace(/\|/g, "\\|")} |`);
  }
  return `${lines.join("\n")}\n`;
}

function explain(e: OwnError): string {
  const extra = e.keyword === "enum" ? ` (${JSON.stringify(e.params.allowedValues).slice(0, 60)}…)` : "";
  return `${e.definition} at \`${e.pointer || "/"}\`: ${e.message}${extra}`;
}

describe("A2A 1.0 corpus (proto-derived schema)", () => {
  const judged = judgeCorpus();

  it("judges every 1.0 document: 93 cards and 304 JSON-RPC documents", () => {
    expect(judged.filter((j) => j.row.kind === "card")).toHaveLength(93);
    expect(judged.filter((j) => j.row.kind === "rpc")).toHaveLength(304);
  });

  it("explains every failure by at least one error and one class", () => {
    for (const j of judged.filter((x) => !x.valid)) {
      expect(j.errors.length, j.row.file).toBeGreaterThan(0);
      expect(j.classes.length, j.row.file).toBeGreaterThan(0);
    }
    // The catch-all class stays small: failures are explained by a specific rule.
    expect(judged.filter((j) => j.classes[0] === "other-type").length).toBeLessThanOrEqual(10);
  });

  it("passes the specification's own JSON-RPC examples that the corpus took from the 1.0.1 text", () => {
    const fromSpec = judged.filter((j) => j.row.file.includes("a2aproject_A2A__docs_specification.md") && !j.row.file.includes("__c"));
    expect(fromSpec.length).toBeGreaterThan(0);
    for (const j of fromSpec.filter((x) => !x.valid)) expect(j.classes, j.row.file).toEqual(["missing-required"]); // `params: {}` elided in the text
  });

  it("reproduces the committed report (v1-corpus-report.md)", async () => {
    await expect(corpusReport(judged)).toMatchFileSnapshot("./v1-corpus-report.md");
  });
});
