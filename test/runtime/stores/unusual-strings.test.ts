/**
 * Issue 29 item 5: any valid JSON string is a valid task id, context id, text or metadata value (RFC 8259 §7:
 * a string may hold any code point, escaped; specification-1.0.1.md §4.1 gives ids and texts no narrower
 * type), and every store engine treats it the same: it keeps the value, or answers that there is no such
 * task, never an internal error. PostgreSQL's text cannot hold U+0000 and its json operators refuse the
 * escapes of U+0000 and of lone surrogates; a lone surrogate written as UTF-8 would become U+FFFD (two ids
 * colliding). Runs on memory, and on PostgreSQL and Redis when their URLs are set (`source .ci/engines.sh`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";
import { rawPost, startServer } from "../../support/servers.js";
import type { A2AStore, LoggedEvent } from "../../../src/runtime/stores/contract.js";

const NUL = "\u0000";
const ONE = "\u0001";
const HIGH = "\ud800";
const LOW = "\udc00";
const ODD = [`nul${NUL}id`, `lone${HIGH}`, `low${LOW}x`, `one${ONE}0000`, `mix${NUL}${HIGH}${ONE}\\u0000`, "plain"];

const task = (id: string, contextId: string, metadata: Record<string, unknown> = {}) => ({
  id,
  contextId,
  kind: "task",
  status: { state: "working", timestamp: new Date().toISOString() },
  history: [{ kind: "message", role: "user", messageId: `m-${id}`, parts: [{ kind: "text", text: `text ${id}` }] }],
  metadata,
});

for (const engine of enginesUnderTest().engines) {
  describe(`unusual strings on ${engine.name}`, () => {
    const namespaces: string[] = [];
    const open = async (): Promise<A2AStore> => {
      const ns = freshNamespace();
      namespaces.push(ns);
      return engine.open(ns);
    };
    const stores: A2AStore[] = [];
    afterAll(async () => {
      for (const store of stores) await store.close();
      for (const ns of namespaces) await engine.drop(ns);
    });

    it("ids, context ids, texts and metadata with U+0000, U+0001 and lone surrogates round-trip", async () => {
      const store = await open();
      stores.push(store);
      for (const [i, id] of ODD.entries()) {
        const written = task(id, `ctx${ODD[(i + 1) % ODD.length]}`, { [`key${NUL}`]: `value${HIGH}`, nested: [LOW, NUL] });
        await store.tasks.commit({ task: written, expectedVersion: 0, events: [{ event: { kind: "status-update", taskId: id, note: `ev${NUL}${LOW}` }, final: false }] });
        expect((await store.tasks.load(id))?.task).toEqual(written);
        expect((await store.events.read(id)).map((e: LoggedEvent) => e.event)).toEqual([{ kind: "status-update", taskId: id, note: `ev${NUL}${LOW}` }]);
        const page = await store.tasks.query({ contextId: written.contextId });
        expect(page.tasks.map((t) => t.id)).toEqual([id]);
        await store.pushConfigs.set(id, { id: `cfg${NUL}${HIGH}`, url: "https://example.com/hook" });
        expect(await store.pushConfigs.get(id, `cfg${NUL}${HIGH}`)).toMatchObject({ id: `cfg${NUL}${HIGH}` });
        expect(await store.pushConfigs.get(id, `cfg${NUL}\ufffd`)).toBeUndefined();
      }
      // Every id is distinct: a lone surrogate is not U+FFFD, U+0000 not its escaped spelling.
      expect(await store.tasks.load("lone\ufffd")).toBeUndefined();
      expect(await store.tasks.load("nul\\u0000id")).toBeUndefined();
      expect(await store.tasks.load(`one${NUL}`)).toBeUndefined();
      // A page token made of such an id pages on.
      const first = await store.tasks.query({ pageSize: 2 });
      const rest = await store.tasks.query({ pageSize: 10, pageToken: first.nextPageToken });
      expect([...first.tasks, ...rest.tasks].map((t) => t.id).sort()).toEqual([...ODD].sort());
    });

    it("a subscriber of a task whose id has U+0000 is woken by its events", async () => {
      const store = await open();
      stores.push(store);
      const id = `sub${NUL}${HIGH}`;
      await store.tasks.commit({ task: task(id, "c"), expectedVersion: 0 });
      const seen: LoggedEvent[] = [];
      const arrived = new Promise<void>((resolve) => {
        const subscription = store.events.subscribe(id, (event) => {
          seen.push(event);
          subscription.close();
          resolve();
        });
        void subscription.ready.then(() => store.events.append(id, [{ event: { n: `x${NUL}` }, final: false }]));
      });
      await arrived;
      expect(seen.map((e) => e.event)).toEqual([{ n: `x${NUL}` }]);
    });

    it("over JSON-RPC: a task id with U+0000 or a lone surrogate is TaskNotFound (-32001), a message with them is stored", async () => {
      const ns = freshNamespace();
      namespaces.push(ns);
      const server = await startServer("1.0.1", "node", { options: { store: await engine.open(ns) } });
      try {
        const headers = { "content-type": "application/json", "a2a-version": "1.0" };
        for (const id of [`x${NUL}`, `y${HIGH}`]) {
          const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }), headers);
          expect((r.json as { error?: { code: number } }).error?.code, r.text).toBe(-32001);
        }
        const contextId = `ctx${NUL}${LOW}`;
        const sent = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: { role: "ROLE_USER", messageId: `m${NUL}`, contextId, parts: [{ text: `task` }], metadata: { [`k${NUL}`]: `v${HIGH}` } } } }), headers);
        const result = (sent.json as { result?: { task?: { id: string; contextId: string; history: Array<{ metadata?: unknown }> } } }).result;
        expect(result?.task?.contextId, sent.text).toBe(contextId);
        const got = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: result?.task?.id } }), headers);
        const stored = (got.json as { result: { contextId: string; history: Array<{ metadata?: unknown }> } }).result;
        expect(stored.contextId).toBe(contextId);
        expect(stored.history[0]?.metadata).toEqual({ [`k${NUL}`]: `v${HIGH}` });
        const listed = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ListTasks", params: { contextId } }), headers);
        expect((listed.json as { result: { tasks: Array<{ id: string }> } }).result.tasks.map((t) => t.id), listed.text).toEqual([result?.task?.id]);
      } finally {
        await server.close();
      }
    });
  });
}
