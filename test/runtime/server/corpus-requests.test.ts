import { describe, expect, it } from "vitest";
import { corpusRows, readCorpusDocument } from "../../support/corpus.js";
import { generatedValidators } from "../../support/project.js";
import { rawPost, sseData, startServer } from "../../support/servers.js";

/**
 * Every 0.x JSON-RPC request of the real-world corpus, sent as it is to the generated server of its
 * version: the valid ones are served (a result, a stream, or an A2A error such as "task not found"),
 * the invalid ones get -32600/-32601/-32602 with a precise `data`, none crashes the server.
 * Each document goes to a fresh server (documents reuse task ids), with push notifications off: no
 * webhook of the corpus is ever called.
 */
type Json = Record<string, unknown>;
const rows = corpusRows().filter((r) => r.version !== "1.0" && r.role === "request");
const versions = [...new Set(rows.map((r) => r.version))].sort();
const REJECTIONS = [-32600, -32601, -32602];

describe("real-world requests", () => {
  it("has the corpus's 0.x requests", () => {
    expect(rows.length).toBeGreaterThan(400);
  });

  for (const version of versions) {
    describe(version, () => {
      const mine = rows.filter((r) => r.version === version);
      it(`${mine.length} requests: valid ones served, invalid ones rejected precisely`, async () => {
        const validators = await generatedValidators(version);
        const problems: string[] = [];
        const counts = { served: 0, rejected: 0, notifications: 0 };
        for (const row of mine) {
          const doc = readCorpusDocument(row.file) as Json;
          const valid = validators[row.definition]?.(doc) === true;
          const server = await startServer(version, "node", { pushNotifications: false });
          const response = await rawPost(server.rpcUrl, JSON.stringify(doc)).finally(() => server.close());
          const where = `${row.file} (${valid ? "valid" : "invalid"} ${row.definition})`;
          if (response.status >= 500) {
            problems.push(`${where}: HTTP ${response.status}`);
            continue;
          }
          if (!("id" in doc) && response.status === 204) {
            // A notification: no answer, even when its params are wrong (JSON-RPC 2.0 §4.1).
            counts.notifications++;
            continue;
          }
          // A streaming method answers with a stream, its errors as the one event.
          const sse = (response.headers.get("content-type") ?? "").startsWith("text/event-stream");
          const events = sse ? sseData(response.text).map((data) => JSON.parse(data) as Json) : [];
          const body = (sse ? events[0] : response.json) as Json;
          const error = body?.error as { code: number; data?: Json } | undefined;
          if (valid) {
            counts.served++;
            if (error && REJECTIONS.includes(error.code)) problems.push(`${where}: rejected with ${JSON.stringify(error)}`);
          } else {
            counts.rejected++;
            if (!error || !REJECTIONS.includes(error.code)) problems.push(`${where}: not rejected: ${response.text.slice(0, 200)}`);
            else {
              const data = error.data ?? {};
              const precise = Array.isArray(data.issues) ? (data.issues as Json[]).length > 0 && (data.issues as Json[]).every((i) => typeof i.pointer === "string" && typeof i.message === "string") : typeof data.method === "string";
              if (!precise) problems.push(`${where}: no precise data in ${JSON.stringify(error)}`);
            }
          }
          if (body?.id !== (doc.id ?? null) && !(error && body?.id === null)) problems.push(`${where}: id ${JSON.stringify(doc.id)} answered as ${JSON.stringify(body?.id)}`);
        }
        expect(problems).toEqual([]);
        expect(counts.served + counts.rejected + counts.notifications).toBe(mine.length);
      });
    });
  }
});
