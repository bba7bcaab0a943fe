/**
 * The push sender's fetch transport (Cloudflare Workers and other runtimes without raw sockets), run here
 * on Node's own fetch against a 127.0.0.1 server: the same URL-level refusals as the node transport,
 * redirects answered and never followed, retries and timeouts; and what it cannot check (DNS answers).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { PushSender, UnsafeWebhookError } from "../../../src/runtime/tasks/push-sender.js";

const servers: Server[] = [];

async function localServer(reply: (res: ServerResponse, n: number, req: IncomingMessage) => void = (res) => res.end("ok")) {
  const received: Array<{ url: string | undefined; headers: IncomingMessage["headers"]; body: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ url: req.url, headers: req.headers, body });
      reply(res, received.length - 1, req);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())))));
});

const fetchSender = (options: ConstructorParameters<typeof PushSender>[0] = {}) => new PushSender({ transport: "fetch", allow: ["127.0.0.1"], backoffMs: 1, ...options });

describe("PushSender on the fetch transport", () => {
  it("is chosen when asked; under Node \"auto\" takes the DNS-checked node transport", async () => {
    expect((await fetchSender().transport()).name).toBe("fetch");
    expect((await new PushSender().transport()).name).toBe("node");
  });

  it("POSTs the JSON body with the token and Bearer headers", async () => {
    const server = await localServer();
    const task = { kind: "task", id: "t-1", status: { state: "completed" } };
    const result = await fetchSender().send({ url: `${server.url}/hook?x=1`, token: "tok", authentication: { schemes: ["Bearer"], credentials: "cred" } }, task);
    expect(result).toEqual({ ok: true, status: 200, attempts: 1 });
    const [request] = server.received;
    expect(request?.url).toBe("/hook?x=1");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-a2a-notification-token"]).toBe("tok");
    expect(request?.headers["authorization"]).toBe("Bearer cred");
    expect(JSON.parse(request?.body ?? "")).toEqual(task);
  });

  it("does not follow a redirect (it could point inside)", async () => {
    const inside = await localServer();
    const server = await localServer((res) => {
      res.writeHead(302, { location: `${inside.url}/admin` });
      res.end();
    });
    const result = await fetchSender().send({ url: server.url }, { a: 1 });
    expect(result).toEqual({ ok: false, attempts: 1, status: 302, error: "HTTP 302 (redirects are not followed)" });
    expect(inside.received).toHaveLength(0);
  });

  it("retries a 5xx and gives up after the configured retries; a 4xx is final", async () => {
    const failing = await localServer((res) => ((res.statusCode = 503), res.end()));
    expect(await fetchSender({ retries: 2 }).send({ url: failing.url }, {})).toEqual({ ok: false, attempts: 3, status: 503, error: "HTTP 503" });
    const missing = await localServer((res) => ((res.statusCode = 404), res.end()));
    expect(await fetchSender({ retries: 2 }).send({ url: missing.url }, {})).toEqual({ ok: false, attempts: 1, status: 404, error: "HTTP 404" });
  });

  it("times out an attempt that gets no answer", async () => {
    const silent = await localServer(() => undefined);
    const result = await fetchSender({ retries: 0, timeoutMs: 100 }).send({ url: silent.url }, {});
    expect(result).toEqual({ ok: false, attempts: 1, error: "timed out after 100 ms" });
  });

  // The URL-level refusals need no DNS: the same on every runtime (nothing here may be connected to).
  const refused: Array<[string, string]> = [
    ["http://127.0.0.1:9/", "loopback"],
    ["http://2130706433/", "loopback"],
    ["http://0x7f.1/", "loopback"],
    ["http://0177.0.0.1/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:a9fe:a9fe]/", "link-local (cloud metadata)"],
    ["http://169.254.169.254/latest/meta-data", "link-local (cloud metadata)"],
    ["http://10.1.2.3/", "private"],
    ["http://[fd00::1]/", "private (unique local)"],
    ["http://[fe80::1]/", "link-local"],
    ["http://metadata.google.internal/", "cloud metadata"],
    ["http://user:secret@hooks.example.com/", "credentials in URL"],
    ["ftp://hooks.example.com/", "scheme ftp:"],
    ["file:///etc/passwd", "scheme file:"],
  ];
  it.each(refused)("refuses %s (%s) at config time and at send time, without a connection", async (url, reason) => {
    const sender = new PushSender({ transport: "fetch" });
    const error = await sender.checkUrl(url).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeWebhookError);
    expect((error as UnsafeWebhookError).reason).toBe(reason);
    const result = await sender.send({ url }, {});
    expect(result).toMatchObject({ ok: false, attempts: 0 });
  });

  it("cannot check what a host name resolves to (docs/edge.md): the URL-level checks pass it", async () => {
    // On the node transport this host would be resolved and refused when any answer is not public.
    await expect(new PushSender({ transport: "fetch" }).checkUrl("https://hooks.example.invalid/x")).resolves.toBeUndefined();
  });
});
