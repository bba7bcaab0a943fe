import { describe, expect, it } from "vitest";
import { A2AError, A2ARedirectError, A2AResponseTooLargeError, A2ATransportError } from "../../../src/runtime/client/client.js";
import { RestTransport, restInterfaceOf } from "../../../src/runtime/client/rest.js";
import type { HttpRoute } from "../../../src/runtime/wire/http-routes.js";

/**
 * The HTTP+JSON client transport against a scripted fetch: what it sends for each rule (verb, path,
 * query, body, headers) and how it reads answers, google.rpc.Status errors (specification-1.0.1.md
 * §11.6) and SSE streams (§11.7).
 */
const routes: HttpRoute[] = [
  { method: "SendMessage", verb: "POST", path: "/message:send", body: "*" },
  { method: "SendStreamingMessage", verb: "POST", path: "/message:stream", body: "*" },
  { method: "GetTask", verb: "GET", path: "/tasks/{id=*}", query: { historyLength: "integer" } },
  { method: "GetTask", verb: "GET", path: "/{tenant}/tasks/{id=*}", query: { historyLength: "integer" } },
];
const profile = { errorCodes: { TaskNotFound: -32001, VersionNotSupported: -32009 }, versionHeader: "A2A-Version", specVersion: "1.0.1" };

function scripted(answer: (url: string, init: RequestInit) => Response) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return answer(url, init);
  };
  return { calls, fetch };
}
const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/a2a+json" } });

describe("RestTransport", () => {
  it("sends each call by its rule: POST with the params as the body, GET with the id in the path and the rest as query; the version header and auth", async () => {
    const s = scripted(() => json(200, { task: { id: "t" } }));
    const t = new RestTransport("http://agent/a2a/", routes, { profile }, { fetch: s.fetch, auth: { type: "bearer", token: "tok" } });
    await t.call("SendMessage", { message: { text: "x" } });
    await t.call("GetTask", { id: "a/b", historyLength: 2 });
    await t.call("GetTask", { id: "t", tenant: "acme" });
    expect(s.calls.map((c) => `${String(c.init.method)} ${c.url}`)).toEqual([
      "POST http://agent/a2a/message:send",
      "GET http://agent/a2a/tasks/a%2Fb?historyLength=2",
      "GET http://agent/a2a/acme/tasks/t",
    ]);
    expect(s.calls[0]?.init.body).toBe('{"message":{"text":"x"}}');
    expect(s.calls[0]?.init.headers).toMatchObject({ "A2A-Version": "1.0", authorization: "Bearer tok", "content-type": "application/a2a+json" });
    expect(s.calls[1]?.init.body).toBeUndefined();
  });

  it("reads §11.6 errors: the code from the ErrorInfo reason, a BadRequest as invalid params, 401 as the auth code; the details as data", async () => {
    const cases: Array<[number, unknown, number]> = [
      [404, { error: { code: 404, status: "NOT_FOUND", message: "Task not found", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }] } }, -32001],
      [400, { error: { code: 400, status: "FAILED_PRECONDITION", message: "v", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "VERSION_NOT_SUPPORTED" }] } }, -32009],
      [400, { error: { code: 400, status: "INVALID_ARGUMENT", message: "Invalid params", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [] }] } }, -32602],
      [401, { error: { code: 401, status: "UNAUTHENTICATED", message: "no", details: [] } }, -32000],
    ];
    for (const [status, body, code] of cases) {
      const t = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => json(status, body)).fetch });
      const error = await t.call("GetTask", { id: "x" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AError);
      expect(error).toMatchObject({ code, method: "GetTask" });
    }
    const html = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => new Response("<html>", { status: 502 })).fetch });
    await expect(html.call("GetTask", { id: "x" })).rejects.toBeInstanceOf(A2ATransportError);
    const none = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => json(200, {})).fetch });
    await expect(none.call("GetTask", {})).rejects.toThrow(/no HTTP\+JSON route/);
  });

  it("streams SSE events (skipping comments) until the stream ends or isFinal; an error body on a stream throws the typed error", async () => {
    const sse = ": ping\n\ndata: {\"task\":{\"id\":\"t\"}}\n\ndata: {\"statusUpdate\":{\"final\":true}}\n\ndata: {\"never\":1}\n\n";
    const s = scripted(() => new Response(sse, { status: 200, headers: { "content-type": "text/event-stream" } }));
    const t = new RestTransport("http://agent", routes, { profile }, { fetch: s.fetch }, { isFinal: (r) => "statusUpdate" in (r as object) });
    const events: unknown[] = [];
    for await (const e of t.stream("SendStreamingMessage", { message: {} })) events.push(e);
    expect(events).toEqual([{ task: { id: "t" } }, { statusUpdate: { final: true } }]);
    expect((s.calls[0]?.init.headers as Record<string, string>).accept).toBe("text/event-stream");
    const failing = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => json(404, { error: { code: 404, status: "NOT_FOUND", message: "m", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND" }] } })).fetch });
    await expect(failing.stream("SendStreamingMessage", {}).next()).rejects.toMatchObject({ code: -32001 });
  });
});

describe("RestTransport through the client's HTTP layer (the same rules as the JSON-RPC transport)", () => {
  it("a body over maxResponseBytes is refused (A2AResponseTooLargeError), announced or counted", async () => {
    const big = JSON.stringify({ task: { id: "t", metadata: { pad: "x".repeat(2_000) } } });
    const announced = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => json(200, JSON.parse(big))).fetch, maxResponseBytes: 1_000 });
    await expect(announced.call("GetTask", { id: "t" })).rejects.toBeInstanceOf(A2AResponseTooLargeError);
    const counted = new RestTransport("http://agent", routes, { profile }, {
      fetch: scripted(() => new Response(new Blob([big]).stream(), { status: 200, headers: { "content-type": "application/json" } })).fetch,
      maxResponseBytes: 1_000,
    });
    await expect(counted.call("GetTask", { id: "t" })).rejects.toBeInstanceOf(A2AResponseTooLargeError);
    const fits = new RestTransport("http://agent", routes, { profile }, { fetch: scripted(() => json(200, JSON.parse(big))).fetch, maxResponseBytes: 10_000 });
    await expect(fits.call("GetTask", { id: "t" })).resolves.toMatchObject({ task: { id: "t" } });
  });

  it("refuses a cross-origin redirect, and sends credentials only to trusted origins when redirects are followed", async () => {
    const redirect = (to: string) => new Response(null, { status: 307, headers: { location: to } });
    const refusing = scripted((url) => (url.startsWith("http://agent/") ? redirect("http://elsewhere/tasks/t") : json(200, { id: "t" })));
    const t = new RestTransport("http://agent", routes, { profile }, { fetch: refusing.fetch, auth: { type: "bearer", token: "secret" } });
    await expect(t.call("GetTask", { id: "t" })).rejects.toBeInstanceOf(A2ARedirectError);
    expect(refusing.calls.map((c) => c.url)).toEqual(["http://agent/tasks/t"]);
    expect(refusing.calls[0]?.init.redirect).toBe("manual");

    const following = scripted((url) => (url.startsWith("http://agent/") ? redirect("http://elsewhere/tasks/t") : json(200, { id: "t" })));
    const f = new RestTransport("http://agent", routes, { profile }, { fetch: following.fetch, auth: { type: "bearer", token: "secret" }, redirects: "follow" });
    await expect(f.call("GetTask", { id: "t" })).resolves.toMatchObject({ id: "t" });
    expect(following.calls.map((c) => c.url)).toEqual(["http://agent/tasks/t", "http://elsewhere/tasks/t"]);
    expect(following.calls[0]?.init.headers).toMatchObject({ authorization: "Bearer secret", "A2A-Version": "1.0" });
    // The other origin gets the protocol's headers, never the token.
    expect(following.calls[1]?.init.headers).not.toHaveProperty("authorization");
    expect(following.calls[1]?.init.headers).toMatchObject({ "A2A-Version": "1.0" });
  });

  it("a timeout ends a call that never answers with an A2ATransportError naming the method", async () => {
    const hanging = async (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(init.signal?.reason)));
    const t = new RestTransport("http://agent", routes, { profile }, { fetch: hanging, timeoutMs: 50 });
    await expect(t.call("GetTask", { id: "t" })).rejects.toThrow(/GetTask: timed out after 50 ms/);
  });
});

describe("restInterfaceOf", () => {
  it("finds the HTTP+JSON interface of a 1.0 card and of a 0.3 card", () => {
    expect(restInterfaceOf({ supportedInterfaces: [{ url: "http://a/rpc", protocolBinding: "JSONRPC" }, { url: "http://a/rest", protocolBinding: "HTTP+JSON" }] })).toBe("http://a/rest");
    expect(restInterfaceOf({ url: "http://a/rest", preferredTransport: "HTTP+JSON" })).toBe("http://a/rest");
    expect(restInterfaceOf({ url: "http://a/rpc", preferredTransport: "JSONRPC", additionalInterfaces: [{ url: "http://a/r", transport: "HTTP+JSON" }] })).toBe("http://a/r");
    expect(restInterfaceOf({ url: "http://a/rpc" })).toBeUndefined();
  });
});
