import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { blockedAddressReason, PushSender, UnsafeWebhookError, type PushSenderOptions } from "../../../src/runtime/tasks/push-sender.js";

// Network rule: these tests only ever connect to 127.0.0.1. Refusals are checked without connecting,
// and every injected lookup used by send() answers loopback only (except the rebinding test's first
// answer, which is consumed by checkUrl, which never connects).

type Lookup = NonNullable<PushSenderOptions["lookup"]>;

/** A lookup that answers fixed addresses and counts its calls. */
function fixedLookup(...addresses: string[]): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  };
  return Object.assign(lookup, { calls });
}

const noLookup: Lookup = async (hostname) => {
  throw new Error(`unexpected lookup of ${hostname}`);
};

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

interface LocalServer {
  url: string;
  port: number;
  received: Received[];
}

const servers: Server[] = [];

/** An HTTP server on 127.0.0.1 (ephemeral port); `reply` answers the n-th request (0-based). */
async function localServer(reply: (res: ServerResponse, n: number, req: IncomingMessage) => void = (res) => res.end("ok")): Promise<LocalServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      reply(res, received.length - 1, req);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, received };
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

function status(code: number, headers: Record<string, string> = {}) {
  return (res: ServerResponse) => {
    res.writeHead(code, headers);
    res.end();
  };
}

describe("blockedAddressReason", () => {
  const blocked: Array<[string, string]> = [
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "CGNAT"],
    ["100.127.255.254", "CGNAT"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["169.254.1.1", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignments"],
    ["192.0.2.1", "documentation"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["[::1]", "loopback"],
    ["fc00::1", "private (unique local)"],
    ["fd12:3456::1", "private (unique local)"],
    ["fd00:ec2::254", "private (cloud metadata)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::FFFF:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["::ffff:a9fe:a9fe", "link-local (cloud metadata)"],
    ["::127.0.0.1", "loopback"],
    ["::7f00:1", "loopback"],
    ["::192.168.0.1", "private"],
    ["::ffff:0:127.0.0.1", "loopback"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::a9fe:a9fe", "link-local (cloud metadata)"],
    ["2002:7f00:1::", "loopback"],
    ["2002:c0a8:101::1", "private"],
    ["100::1", "discard-only"],
    ["::2:1:2:3", "reserved"],
    ["metadata.google.internal", "cloud metadata"],
    ["METADATA.google.internal.", "cloud metadata"],
    ["example.com", "not an IP address"],
    ["2130706433", "not an IP address"],
    ["", "not an IP address"],
  ];
  it.each(blocked)("%s → %s", (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  const allowed = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1", "2606:4700::1", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1"];
  it.each(allowed)("%s is public", (ip) => {
    expect(blockedAddressReason(ip)).toBeUndefined();
  });
});

describe("PushSender.checkUrl", () => {
  const refusals: Array<[string, RegExp]> = [
    ["http://127.0.0.1:9/x", /^webhook URL http:\/\/127\.0\.0\.1:9\/x resolves to 127\.0\.0\.1 \(loopback\), which is not allowed; allow-list it with pushNotifications\.allow$/],
    ["http://[::1]:8080/hook", /resolves to ::1 \(loopback\)/],
    ["http://10.0.0.1/", /resolves to 10\.0\.0\.1 \(private\)/],
    ["https://192.168.1.1/hook", /resolves to 192\.168\.1\.1 \(private\)/],
    ["http://169.254.169.254/latest/meta-data/", /\(link-local \(cloud metadata\)\)/],
    ["http://2130706433/", /http:\/\/2130706433\/ resolves to 127\.0\.0\.1 \(loopback\)/],
    ["http://0x7f.0.0.1/", /resolves to 127\.0\.0\.1 \(loopback\)/],
    ["http://0x7f.1/", /resolves to 127\.0\.0\.1 \(loopback\)/],
    ["http://0177.0.0.1/", /resolves to 127\.0\.0\.1 \(loopback\)/],
    ["http://[::ffff:127.0.0.1]/", /resolves to ::ffff:7f00:1 \(loopback\)/],
    ["http://[::ffff:169.254.169.254]/", /cloud metadata/],
    ["http://0.0.0.0:8080/", /\(unspecified\)/],
    ["http://metadata.google.internal/computeMetadata/v1/", /cloud metadata host/],
    ["ftp://example.com/hook", /uses ftp:, which is not allowed; only http: and https: are/],
    ["file:///etc/passwd", /uses file:/],
    ["javascript:alert(1)", /uses javascript:/],
    ["not a url", /is not a valid URL/],
  ];
  it.each(refusals)("refuses %s", async (url, message) => {
    const sender = new PushSender({ lookup: noLookup });
    const error = await sender.checkUrl(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnsafeWebhookError);
    expect((error as UnsafeWebhookError).message).toMatch(message);
  });

  it("gives the short reason and the URL on the error", async () => {
    const error = await new PushSender({ lookup: noLookup }).checkUrl("http://127.0.0.1:9/x").catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "UnsafeWebhookError", reason: "loopback", url: "http://127.0.0.1:9/x" });
  });

  it("refuses credentials in the URL without echoing the password", async () => {
    const sender = new PushSender({ lookup: fixedLookup("8.8.8.8") });
    const error = await sender.checkUrl("https://user:s3cret@hooks.example.com/x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeWebhookError);
    expect((error as UnsafeWebhookError).reason).toBe("credentials in URL");
    expect((error as UnsafeWebhookError).message).not.toContain("s3cret");
    expect((error as UnsafeWebhookError).url).not.toContain("s3cret");
    await expect(sender.checkUrl("https://user@hooks.example.com/x")).rejects.toThrow(/contains credentials/);
  });

  // The hardening issue (item 7): a refusal tells the caller why in general terms; the resolved internal
  // address and the server's configuration go to the server's logger only (in `message`).
  it.each([
    ["10.1.2.3", "private"],
    ["169.254.169.254", "link-local"],
    ["127.0.0.1", "loopback"],
    ["fd00::7", "unique local"],
  ])("tells the caller nothing of the address a host resolves to (%s)", async (address, reason) => {
    const error = (await new PushSender({ lookup: fixedLookup(address) }).checkUrl("https://inside.example/hook").catch((e: unknown) => e)) as UnsafeWebhookError;
    expect(error).toBeInstanceOf(UnsafeWebhookError);
    expect(error.message).toContain(address);
    expect(error.reason).toContain(reason);
    // The kind of address (loopback, private, ...) is general; the address itself is not told.
    expect(error.publicMessage).toBe(`webhook URL https://inside.example/hook is not allowed: its host resolves to a non-public address (${error.reason})`);
    expect(error.publicMessage).not.toContain(address);
    expect(error.publicMessage).not.toContain("pushNotifications.allow");
  });

  it("tells the caller only that a host could not be resolved, not the resolver's error", async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.invalid"), { code: "ENOTFOUND" });
    };
    const error = (await new PushSender({ lookup: failing }).checkUrl("https://nowhere.invalid/hook").catch((e: unknown) => e)) as UnsafeWebhookError;
    expect(error.message).toContain("ENOTFOUND");
    expect(error.publicMessage).toBe("webhook URL https://nowhere.invalid/hook is not allowed: its host could not be resolved");
    const empty = (await new PushSender({ lookup: async () => [] }).checkUrl("https://nowhere.invalid/hook").catch((e: unknown) => e)) as UnsafeWebhookError;
    expect(empty.publicMessage).toBe("webhook URL https://nowhere.invalid/hook is not allowed: its host could not be resolved");
  });

  it("keeps the operator's hint out of what the caller is told for literal addresses too", async () => {
    const error = (await new PushSender({ lookup: noLookup }).checkUrl("http://127.0.0.1:9/x").catch((e: unknown) => e)) as UnsafeWebhookError;
    expect(error.message).toContain("pushNotifications.allow");
    expect(error.publicMessage).not.toContain("pushNotifications.allow");
    expect(error.publicMessage).toContain("127.0.0.1"); // the caller's own text, not something it could not know
  });

  it("refuses plain http: when allowHttp is false", async () => {
    const lookup = fixedLookup("8.8.8.8");
    await expect(new PushSender({ allowHttp: false, lookup }).checkUrl("http://hooks.example.com/x")).rejects.toThrow(/plain http:/);
    await expect(new PushSender({ allowHttp: false, lookup }).checkUrl("https://hooks.example.com/x")).resolves.toBeUndefined();
  });

  it("refuses a host name that resolves to loopback", async () => {
    const lookup = fixedLookup("127.0.0.1");
    await expect(new PushSender({ lookup }).checkUrl("https://evil.example/hook")).rejects.toThrow(
      "webhook URL https://evil.example/hook resolves to 127.0.0.1 (loopback), which is not allowed; allow-list it with pushNotifications.allow",
    );
    expect(lookup.calls).toEqual(["evil.example"]);
  });

  it("refuses a host name when any of its addresses is blocked", async () => {
    const lookup = fixedLookup("93.184.216.34", "10.1.2.3");
    await expect(new PushSender({ lookup }).checkUrl("https://mixed.example/hook")).rejects.toThrow(/resolves to 10\.1\.2\.3 \(private\)/);
    const v6 = fixedLookup("2606:4700::1", "fd00::5");
    await expect(new PushSender({ lookup: v6 }).checkUrl("https://mixed.example/hook")).rejects.toThrow(/fd00::5 \(private \(unique local\)\)/);
  });

  it("refuses a host name that does not resolve", async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.invalid"), { code: "ENOTFOUND" });
    };
    await expect(new PushSender({ lookup: failing }).checkUrl("https://nowhere.invalid/")).rejects.toThrow(/could not be resolved \(ENOTFOUND\)/);
    await expect(new PushSender({ lookup: fixedLookup() }).checkUrl("https://empty.example/")).rejects.toThrow(/resolves to no address/);
  });

  it("accepts a public IP literal without a lookup", async () => {
    const sender = new PushSender({ lookup: noLookup });
    await expect(sender.checkUrl("https://8.8.8.8/hook")).resolves.toBeUndefined();
    await expect(sender.checkUrl("https://[2606:4700::1]:8443/hook")).resolves.toBeUndefined();
  });

  it("accepts a host name resolving to public addresses (resolves only, connects nowhere)", async () => {
    const lookup = fixedLookup("93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946");
    await expect(new PushSender({ lookup }).checkUrl("https://hooks.example.com/a2a?x=1")).resolves.toBeUndefined();
    expect(lookup.calls).toEqual(["hooks.example.com"]);
  });

  it("accepts allow-listed addresses, names and CIDR blocks", async () => {
    const lookup = fixedLookup("127.0.0.1", "::1");
    await expect(new PushSender({ allow: ["127.0.0.1"], lookup }).checkUrl("http://127.0.0.1:9/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["localhost"], lookup }).checkUrl("http://localhost:9/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["LocalHost"], lookup }).checkUrl("http://localhost.:9/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["127.0.0.0/8", "::1"], lookup }).checkUrl("http://localhost:9/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["10.0.0.0/8"], lookup }).checkUrl("http://10.20.30.40/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["::1"], lookup }).checkUrl("http://[::1]/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["fd00::/8"], lookup }).checkUrl("http://[fd00::5]/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["127.0.0.1"], lookup }).checkUrl("http://[::ffff:127.0.0.1]/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["hooks.internal"], lookup }).checkUrl("https://HOOKS.internal/x")).resolves.toBeUndefined();
  });

  it("allows only what the allow-list names", async () => {
    const lookup = fixedLookup("127.0.0.1", "::1");
    await expect(new PushSender({ allow: ["127.0.0.1"], lookup }).checkUrl("http://localhost/x")).rejects.toThrow(/::1 \(loopback\)/);
    await expect(new PushSender({ allow: ["10.0.0.0/8"], lookup }).checkUrl("http://11.0.0.1/x")).resolves.toBeUndefined();
    await expect(new PushSender({ allow: ["10.0.0.0/8"], lookup }).checkUrl("http://192.168.0.1/x")).rejects.toThrow(/private/);
    await expect(new PushSender({ allow: ["other.internal"], lookup }).checkUrl("http://hooks.internal/x")).rejects.toThrow(/loopback/);
  });

  it("rejects a malformed CIDR in the allow-list", () => {
    expect(() => new PushSender({ allow: ["10.0.0.0/33"] })).toThrow(TypeError);
    expect(() => new PushSender({ allow: ["nonsense/8"] })).toThrow(TypeError);
  });
});

describe("PushSender.send", () => {
  it("POSTs the JSON body with the token and Bearer headers", async () => {
    const server = await localServer();
    const sender = new PushSender({ allow: ["127.0.0.1"], lookup: noLookup });
    const task = { kind: "task", id: "t-1", status: { state: "completed" } };
    const result = await sender.send({ url: `${server.url}/hook?x=1`, token: "tok-123", authentication: { schemes: ["bearer"], credentials: "cred-456" } }, task);
    expect(result).toEqual({ ok: true, status: 200, attempts: 1 });
    expect(server.received).toHaveLength(1);
    const [request] = server.received;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("/hook?x=1");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["x-a2a-notification-token"]).toBe("tok-123");
    expect(request?.headers["authorization"]).toBe("Bearer cred-456");
    expect(JSON.parse(request?.body ?? "")).toEqual(task);
  });

  it("sends no auth headers when none are configured or the scheme is not Bearer", async () => {
    const server = await localServer();
    const sender = new PushSender({ allow: ["127.0.0.1"], lookup: noLookup });
    await sender.send({ url: server.url }, { a: 1 });
    await sender.send({ url: server.url, authentication: { schemes: ["Basic"], credentials: "x" } }, { a: 1 });
    await sender.send({ url: server.url, authentication: { schemes: ["Bearer"] } }, { a: 1 });
    expect(server.received).toHaveLength(3);
    for (const request of server.received) {
      expect(request.headers["authorization"]).toBeUndefined();
      expect(request.headers["x-a2a-notification-token"]).toBeUndefined();
    }
  });

  it("connects to an allow-listed host name through the guarded lookup", async () => {
    const server = await localServer();
    const lookup = fixedLookup("127.0.0.1");
    const sender = new PushSender({ allow: ["localhost"], lookup });
    const result = await sender.send({ url: `http://localhost:${server.port}/hook` }, { hello: "world" });
    expect(result).toEqual({ ok: true, status: 200, attempts: 1 });
    expect(lookup.calls).toEqual(["localhost"]);
    expect(server.received[0]?.headers.host).toBe(`localhost:${server.port}`);
  });

  it("retries 5xx with backoff and reports each event", async () => {
    const server = await localServer((res, n) => status(n < 2 ? 500 : 200)(res));
    const events: unknown[] = [];
    const sender = new PushSender({ allow: ["127.0.0.1"], backoffMs: 1, lookup: noLookup, onEvent: (e) => events.push(e) });
    const result = await sender.send({ url: server.url }, { n: 1 });
    expect(result).toEqual({ ok: true, status: 200, attempts: 3 });
    expect(server.received).toHaveLength(3);
    expect(events).toEqual([
      { type: "attempt-failed", url: server.url, attempt: 1, status: 500, error: "HTTP 500" },
      { type: "attempt-failed", url: server.url, attempt: 2, status: 500, error: "HTTP 500" },
      { type: "delivered", url: server.url, attempt: 3, status: 200 },
    ]);
  });

  it("retries 429 and gives up after the configured retries", async () => {
    const server = await localServer(status(429));
    const events: Array<{ type: string }> = [];
    const sender = new PushSender({ allow: ["127.0.0.1"], retries: 2, backoffMs: 1, lookup: noLookup, onEvent: (e) => events.push(e) });
    const result = await sender.send({ url: server.url }, {});
    expect(result).toEqual({ ok: false, attempts: 3, status: 429, error: "HTTP 429" });
    expect(server.received).toHaveLength(3);
    expect(events.map((e) => e.type)).toEqual(["attempt-failed", "attempt-failed", "attempt-failed", "gave-up"]);
  });

  it("does not retry a 404", async () => {
    const server = await localServer(status(404));
    const result = await new PushSender({ allow: ["127.0.0.1"], backoffMs: 1, lookup: noLookup }).send({ url: server.url }, {});
    expect(result).toEqual({ ok: false, attempts: 1, status: 404, error: "HTTP 404" });
    expect(server.received).toHaveLength(1);
  });

  it("does not follow a redirect", async () => {
    const inside = await localServer();
    const server = await localServer(status(302, { location: `${inside.url}/internal` }));
    const result = await new PushSender({ allow: ["127.0.0.1"], backoffMs: 1, lookup: noLookup }).send({ url: server.url }, {});
    expect(result).toEqual({ ok: false, attempts: 1, status: 302, error: "HTTP 302 (redirects are not followed)" });
    expect(server.received).toHaveLength(1);
    expect(inside.received).toHaveLength(0);
  });

  it("times out each attempt and retries", async () => {
    const server = await localServer(() => undefined); // never answers
    const started = Date.now();
    const result = await new PushSender({ allow: ["127.0.0.1"], retries: 1, backoffMs: 1, timeoutMs: 150, lookup: noLookup }).send({ url: server.url }, {});
    expect(result).toEqual({ ok: false, attempts: 2, error: "timed out after 150 ms" });
    expect(server.received).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("treats a connection error as retryable", async () => {
    const server = await localServer();
    const port = server.port;
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const result = await new PushSender({ allow: ["127.0.0.1"], retries: 1, backoffMs: 1, lookup: noLookup }).send({ url: `http://127.0.0.1:${port}/` }, {});
    expect(result.ok).toBe(false);
    expect(result.attempts).toBe(2);
    expect(result.ok ? "" : result.error).toMatch(/ECONNREFUSED/);
  });

  it("stops when the signal aborts", async () => {
    const server = await localServer(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await new PushSender({ allow: ["127.0.0.1"], timeoutMs: 5000, lookup: noLookup }).send({ url: server.url }, {}, controller.signal);
    expect(result).toEqual({ ok: false, attempts: 1, error: "aborted" });
    const before = await new PushSender({ allow: ["127.0.0.1"], lookup: noLookup }).send({ url: server.url }, {}, AbortSignal.abort());
    expect(before).toEqual({ ok: false, attempts: 0, error: "aborted" });
  });

  it("refuses a target that is not allow-listed without any request", async () => {
    const server = await localServer();
    const events: Array<{ type: string; attempt: number }> = [];
    const sender = new PushSender({ lookup: noLookup, onEvent: (e) => events.push(e) });
    const result = await sender.send({ url: `${server.url}/hook` }, { secret: 1 });
    expect(result).toEqual({ ok: false, attempts: 0, error: expect.stringMatching(/resolves to 127\.0\.0\.1 \(loopback\), which is not allowed/) });
    expect(events).toMatchObject([{ type: "refused", attempt: 0 }]);
    const scheme = await sender.send({ url: "file:///etc/passwd" }, {});
    expect(scheme).toMatchObject({ ok: false, attempts: 0 });
    expect(server.received).toHaveLength(0);
  });

  it("refuses at connect time a host name that resolves to loopback", async () => {
    const server = await localServer();
    const lookup = fixedLookup("127.0.0.1");
    const result = await new PushSender({ lookup, backoffMs: 1 }).send({ url: `http://hooks.example:${server.port}/` }, {});
    expect(result).toEqual({ ok: false, attempts: 1, error: expect.stringMatching(/resolves to 127\.0\.0\.1 \(loopback\)/) });
    expect(lookup.calls).toEqual(["hooks.example"]); // refused, so not retried
    expect(server.received).toHaveLength(0);
  });

  it("does not fall for DNS rebinding between checkUrl and send", async () => {
    const server = await localServer();
    const calls: string[] = [];
    const rebinding: Lookup = async (hostname) => {
      calls.push(hostname);
      // The first answer (public) is only ever seen by checkUrl, which does not connect.
      return [{ address: calls.length === 1 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    };
    const sender = new PushSender({ lookup: rebinding, backoffMs: 1 });
    const url = `http://rebind.example:${server.port}/hook`;
    await expect(sender.checkUrl(url)).resolves.toBeUndefined();
    expect(calls).toHaveLength(1);
    const result = await sender.send({ url }, { task: 1 });
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error).toMatch(/resolves to 127\.0\.0\.1 \(loopback\)/);
    expect(calls).toHaveLength(2);
    expect(server.received).toHaveLength(0);
  });

  it("reports a body that cannot be serialized and a bad header without throwing", async () => {
    const server = await localServer();
    const sender = new PushSender({ allow: ["127.0.0.1"], lookup: noLookup });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(await sender.send({ url: server.url }, circular)).toMatchObject({ ok: false, attempts: 0, error: expect.stringMatching(/JSON/) });
    expect(await sender.send({ url: server.url, token: "a\r\nx-injected: 1" }, {})).toMatchObject({ ok: false, attempts: 1 });
    expect(server.received).toHaveLength(0);
  });
});
