// Redirects and credentials (issue 16.5): the client refuses cross-origin redirects by default (fetch
// would follow a 307 to another origin, re-POST the body and forward custom credential headers), follows
// same-origin ones up to a bound, and sends credentials (auth, option and call headers) only to origins
// the user configured — also when an agent card names an endpoint on another origin.
import { describe, expect, it } from "vitest";
import { A2ARedirectError, fetchAgentCard, JsonRpcTransport, type ClientOptions } from "../../../src/runtime/client/client.js";
import * as Generated from "../../../generated/a2a-1.0.1/client.js";

// The generated client has its own copy of the runtime (and so of the error classes).
const { A2AClient } = Generated;
import { answer, drain, failure, json, redirect, serve } from "../../support/stub-servers.js";

const credentials: ClientOptions = { auth: { type: "bearer", token: "secret-token" }, headers: { "X-API-Key": "secret-key" } };

/** Whether any request a server received carried a credential. */
function sawCredentials(received: { headers: Record<string, unknown>; url: string | undefined }[]): boolean {
  return received.some((r) => r.headers["authorization"] !== undefined || r.headers["x-api-key"] !== undefined || (r.url ?? "").includes("secret"));
}

function v1Card(url: string): Record<string, unknown> {
  return {
    name: "Agent",
    description: "An agent",
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    version: "1.0.0",
    capabilities: {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  };
}

describe("cross-origin redirects are refused by default", () => {
  it.each([301, 302, 303, 307, 308])("a unary call answered %i to another origin throws an A2ARedirectError and sends nothing there", async (status) => {
    const other = await serve(answer("from the other origin"));
    const agent = await serve((_req, res) => redirect(res, status, `${other.url}/steal`));
    const error = await failure(new JsonRpcTransport(agent.url, credentials).call("SendMessage", { a: 1 }));
    expect(error).toBeInstanceOf(A2ARedirectError);
    expect(error).toMatchObject({ status, from: agent.url, location: `${other.url}/steal` });
    expect((error as Error).message).toMatch(/redirects to another origin .*refused/);
    expect(other.received).toEqual([]);
    expect(agent.received[0]?.headers).toMatchObject({ authorization: "Bearer secret-token", "x-api-key": "secret-key" });
  });

  it("a stream is refused the same way", async () => {
    const other = await serve(answer("x"));
    const agent = await serve((_req, res) => redirect(res, 307, `${other.url}/`));
    const { error } = await drain(new JsonRpcTransport(agent.url, credentials).stream("SendStreamingMessage", {}));
    expect(error).toBeInstanceOf(A2ARedirectError);
    expect(other.received).toEqual([]);
  });

  it("the card fetch is refused the same way", async () => {
    const other = await serve((_req, res) => json(res, 200, v1Card("http://127.0.0.1:1/")));
    const agent = await serve((_req, res) => redirect(res, 302, `${other.url}/.well-known/agent-card.json`));
    const error = await failure(fetchAgentCard(agent.url, "/.well-known/agent-card.json", credentials));
    expect(error).toBeInstanceOf(A2ARedirectError);
    expect(other.received).toEqual([]);
    const viaClient = await failure(A2AClient.fromAgentUrl(agent.url, credentials));
    expect(viaClient).toBeInstanceOf(Generated.A2ARedirectError);
    expect(other.received).toEqual([]);
  });

  it('redirects: "follow" follows it, without any credential (an API key in the query included)', async () => {
    const other = await serve(answer("moved"));
    const agent = await serve((_req, res) => redirect(res, 307, `${other.url}/moved`));
    await expect(new JsonRpcTransport(agent.url, { ...credentials, redirects: "follow" }).call("SendMessage", { a: 1 })).resolves.toBe("moved");
    expect(other.received).toHaveLength(1);
    expect(other.received[0]?.json).toMatchObject({ method: "SendMessage", params: { a: 1 } }); // 307 keeps the method and body
    expect(sawCredentials(other.received)).toBe(false);
    const query = await serve((_req, res) => redirect(res, 307, `${other.url}/q`));
    await new JsonRpcTransport(query.url, { auth: { type: "apiKey", name: "key", value: "secret", in: "query" }, redirects: "follow" }).call("x", {});
    expect(query.received[0]?.url).toBe("/?key=secret");
    expect(other.received[1]?.url).toBe("/q");
  });

  it("a trusted origin receives the credentials when a redirect is followed to it", async () => {
    const other = await serve(answer("ok"));
    const agent = await serve((_req, res) => redirect(res, 308, `${other.url}/`));
    await new JsonRpcTransport(agent.url, { ...credentials, redirects: "follow", trustedOrigins: [other.origin] }).call("x", {});
    expect(other.received[0]?.headers).toMatchObject({ authorization: "Bearer secret-token", "x-api-key": "secret-key" });
  });
});

describe("same-origin redirects are followed, within a bound", () => {
  it("follows a 307 on the same origin, re-POSTing the body with the credentials", async () => {
    const agent = await serve((req, res, received) => (req.url === "/old" ? redirect(res, 307, "/new") : answer(received.url)(req, res, received)));
    await expect(new JsonRpcTransport(`${agent.url}/old`, credentials).call("x", { a: 1 })).resolves.toBe("/new");
    expect(agent.received.map((r) => [r.method, r.url, r.json?.["params"], r.headers["x-api-key"]])).toEqual([
      ["POST", "/old", { a: 1 }, "secret-key"],
      ["POST", "/new", { a: 1 }, "secret-key"],
    ]);
  });

  it("a 303 continues as a GET without a body, as fetch does", async () => {
    const agent = await serve((req, res) => (req.url === "/old" ? redirect(res, 303, "/new") : json(res, 405, { error: req.method })));
    const error = await failure(new JsonRpcTransport(`${agent.url}/old`).call("x", {}));
    expect(error).toMatchObject({ status: 405 });
    expect(agent.received[1]).toMatchObject({ method: "GET", url: "/new", body: "" });
  });

  it("stops after maxRedirects (default 5), and maxRedirects: 0 refuses every redirect", async () => {
    const agent = await serve((req, res) => redirect(res, 307, `/hop${Number((req.url ?? "").replace(/\D/g, "") || 0) + 1}`));
    const error = await failure(new JsonRpcTransport(agent.url).call("x", {}));
    expect(error).toBeInstanceOf(A2ARedirectError);
    expect((error as Error).message).toMatch(/more than 5 redirects/);
    expect(agent.received).toHaveLength(6);
    const none = await failure(new JsonRpcTransport(agent.url, { maxRedirects: 0 }).call("x", {}));
    expect((none as Error).message).toMatch(/more than 0 redirects/);
  });
});

describe("credentials go only to configured origins", () => {
  it("a card naming an endpoint on another origin is refused when credentials are set (A2AUntrustedOriginError)", async () => {
    const elsewhere = await serve(answer({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] } }));
    const agent = await serve((_req, res) => json(res, 200, v1Card(`${elsewhere.url}/a2a`)));
    const error = await failure(A2AClient.fromAgentUrl(agent.url, credentials));
    expect(error).toBeInstanceOf(Generated.A2AUntrustedOriginError);
    expect(error).toMatchObject({ origin: elsewhere.origin });
    expect((error as Error).message).toMatch(/another origin .*trustedOrigins/);
    expect(agent.received[0]?.headers).toMatchObject({ "x-api-key": "secret-key" }); // the configured origin gets them
    expect(elsewhere.received).toEqual([]);
  });

  it("without credentials the client connects there; with the origin in trustedOrigins the credentials go too", async () => {
    const elsewhere = await serve(answer({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] } }));
    const agent = await serve((_req, res) => json(res, 200, v1Card(`${elsewhere.url}/a2a`)));
    const anonymous = await A2AClient.fromAgentUrl(agent.url);
    await anonymous.sendMessage(A2AClient.sendParams("hi"), { headers: { "X-API-Key": "per-call" } });
    expect(elsewhere.received[0]?.headers["x-api-key"]).toBeUndefined(); // call headers are credentials too
    expect(elsewhere.received[0]?.headers["a2a-version"]).toBe("1.0"); // protocol headers are not
    const trusted = await A2AClient.fromAgentUrl(agent.url, { ...credentials, trustedOrigins: [elsewhere.origin] });
    await trusted.sendMessage(A2AClient.sendParams("hi"));
    expect(elsewhere.received[1]?.headers).toMatchObject({ authorization: "Bearer secret-token", "x-api-key": "secret-key", "a2a-version": "1.0" });
  });

  it("a card on the same origin gets the credentials as before", async () => {
    const agent = await serve((req, res, received) =>
      req.method === "GET" ? json(res, 200, v1Card("/a2a")) : answer({ message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] } })(req, res, received),
    );
    const client = await A2AClient.fromAgentUrl(agent.url, credentials);
    await client.sendMessage(A2AClient.sendParams("hi"));
    expect(client.endpoint).toBe(`${agent.url}/a2a`);
    expect(agent.received[1]?.headers).toMatchObject({ authorization: "Bearer secret-token", "x-api-key": "secret-key" });
  });
});

describe("originOf", () => {
  it("tells origins apart for schemes without URL origins (two gRPC hosts are not one \"null\" origin)", async () => {
    const { originOf } = await import("../../../src/runtime/client/http.js");
    expect(originOf("https://a.example/x?y")).toBe("https://a.example");
    expect(originOf("grpc://a.example:50051")).toBe("grpc://a.example:50051");
    expect(originOf("grpc://a.example:50051")).not.toBe(originOf("grpc://b.example:50051"));
  });
});
