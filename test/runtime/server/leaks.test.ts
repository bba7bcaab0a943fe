import { describe, expect, it } from "vitest";
import { FRAMEWORKS, modules, sleep, startServer, startWebhookReceiver } from "../../support/servers.js";

/**
 * No leaked sockets, timers or servers: a full round (card, send, a stream with heartbeats that the
 * client abandons, a push notification, cancel) on every adapter, then everything is closed, and the
 * process's active resources are back where they started.
 */
function resources(): string[] {
  return process.getActiveResourcesInfo().filter((r) => r !== "TTYWrap" && r !== "FSReqCallback").sort();
}

async function settle(baseline: string[]): Promise<string[]> {
  const until = Date.now() + 3000;
  for (;;) {
    const now = resources();
    if (now.length <= baseline.length || Date.now() > until) return now;
    await sleep(20);
  }
}

describe("no leaks", () => {
  it.each(FRAMEWORKS)("%s: sockets, timers and servers are all released after close", async (framework) => {
    const baseline = resources();
    const m = await modules("0.3.0");
    const hook = await startWebhookReceiver();
    const server = await startServer("0.3.0", framework, { heartbeatMs: 10 });
    const client = (await m.client.A2AClient.fromAgentUrl(server.baseUrl)) as unknown as {
      sendMessage(p: unknown): Promise<Record<string, unknown>>;
      sendStreamingMessage(p: unknown): AsyncGenerator<Record<string, unknown>>;
      setTaskPushNotificationConfig(p: unknown): Promise<unknown>;
      cancelTask(p: unknown): Promise<unknown>;
    };
    const userMessage = m.client.A2AClient.userMessage;
    await client.sendMessage({ message: userMessage("hello") });
    // A stream the client walks away from while the task still runs.
    const stream = client.sendStreamingMessage({ message: userMessage("slow") });
    const first = (await stream.next()).value as Record<string, unknown>;
    await sleep(30);
    await stream.return(undefined);
    await client.cancelTask({ id: first.id });
    // A push notification.
    const asked = await client.sendMessage({ message: userMessage("ask") });
    await client.setTaskPushNotificationConfig({ taskId: asked.id, pushNotificationConfig: { url: hook.url } });
    await client.sendMessage({ message: userMessage("done", { taskId: String(asked.id), contextId: String(asked.contextId) }) });
    await hook.waitFor((body) => body.id === asked.id && (body.status as Record<string, unknown>).state === "completed");
    await server.close();
    await hook.close();
    expect(server.core.bus.listenerCount()).toBe(0);
    // No kind of resource (TCPSocketWrap, TCPServerWrap, Timeout, ...) is more numerous than before.
    const count = (list: string[]) => list.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {});
    const before = count(baseline);
    const extra = Object.entries(count(await settle(baseline))).filter(([kind, n]) => n > (before[kind] ?? 0));
    expect(extra).toEqual([]);
  });
});

describe("no leaks over HTTP+JSON (1.0.1)", () => {
  it.each(FRAMEWORKS)("%s: a REST stream the client leaves releases its subscription; everything is released after close", async (framework) => {
    const baseline = resources();
    const server = await startServer("1.0.1", framework, { rest: true, heartbeatMs: 10 });
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const message = (text: string) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }] });
    const controller = new AbortController();
    const response = await fetch(`${server.restUrl}/message:stream`, { method: "POST", headers, body: JSON.stringify({ message: message("slow") }), signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = JSON.parse(new TextDecoder().decode((await reader.read()).value).split("\n").find((l) => l.startsWith("data:"))?.slice(5) ?? "{}") as { task: { id: string } };
    expect(server.core.bus.listenerCount(first.task.id)).toBe(1);
    controller.abort();
    const until = Date.now() + 3000;
    while (server.core.bus.listenerCount(first.task.id) > 0 && Date.now() < until) await sleep(10);
    expect(server.core.bus.listenerCount(first.task.id)).toBe(0);
    await fetch(`${server.restUrl}/tasks/${first.task.id}:cancel`, { method: "POST", headers, body: "{}" });
    await server.close();
    const count = (list: string[]) => list.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {});
    const before = count(baseline);
    const extra = Object.entries(count(await settle(baseline))).filter(([kind, n]) => n > (before[kind] ?? 0));
    expect(extra).toEqual([]);
  });
});
