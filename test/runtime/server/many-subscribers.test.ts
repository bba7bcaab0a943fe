/**
 * Issue 29 item 10: any number of clients may follow one task (specification-1.0.1.md §3.1.6 SubscribeToTask;
 * §3.5.2 "multiple concurrent streams"). Twenty subscriptions on one task print no Node.js
 * MaxListenersExceededWarning (a false leak alarm in operators' logs), and every one is released when its
 * client goes away.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawPost, sleep, startServer, type RunningServer } from "../../support/servers.js";
import { enginesUnderTest, freshNamespace, type EngineUnderTest } from "../../support/stores/engines-under-test.js";

type Json = Record<string, unknown>;
const HEADERS = { "content-type": "application/json", "a2a-version": "1.0" };

for (const engine of enginesUnderTest().engines) describe(`20 subscribers on one task (${engine.name} store)`, () => subscribers(engine));

function subscribers(engine: EngineUnderTest) {
  let server: RunningServer;
  const ns = freshNamespace();
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => void warnings.push(warning);
  beforeAll(async () => {
    server = await startServer("1.0.1", "node", { options: { store: await engine.open(ns) } });
    process.on("warning", onWarning);
  });
  afterAll(async () => {
    process.off("warning", onWarning);
    await server.close();
    await engine.drop(ns);
  });

  it("print no MaxListenersExceededWarning and are all released", async () => {
    const sent = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { role: "ROLE_USER", messageId: "m-ask", parts: [{ text: "ask" }] } } }), HEADERS);
    const taskId = String((((sent.json as Json).result as Json).task as Json).id);
    const clients = Array.from({ length: 20 }, () => new AbortController());
    const responses = await Promise.all(
      clients.map((client, i) =>
        fetch(server.rpcUrl, { method: "POST", headers: HEADERS, body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "SubscribeToTask", params: { id: taskId } }), signal: client.signal }),
      ),
    );
    for (const response of responses) expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    // Each subscription's first event (the task) has arrived: all 20 are registered.
    for (const response of responses) await response.body?.getReader().read();
    expect(server.core.bus.listenerCount(taskId)).toBe(20);
    for (const client of clients) client.abort();
    while (server.core.bus.listenerCount(taskId) > 0) await sleep(10);
    expect(server.core.bus.listenerCount(taskId)).toBe(0);
    // process 'warning' events are emitted on the next tick.
    await sleep(0);
    expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
  });
}
