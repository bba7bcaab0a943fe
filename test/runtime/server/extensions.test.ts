/**
 * Required extensions (issue 15 item 9). The card declares extensions in `capabilities.extensions`; a
 * client activates some for a request in the version's extensions header, comma-separated (1.0.1:
 * `A2A-Extensions`, specification-1.0.1.md §3.2.6 and §14.2.2; 0.3.0: `X-A2A-Extensions`, the header of
 * the 0.3 SDKs — the 0.3.0 text names none). On every adapter and binding:
 *
 * - a request that does not activate an extension the card marks `required: true` is refused: 1.0.1
 *   ExtensionSupportRequiredError -32008 (§3.3.4: "the agent MUST return ExtensionSupportRequiredError";
 *   §5.4: HTTP 400 FAILED_PRECONDITION on HTTP+JSON); 0.3.0 has no such code, so -32600 Invalid Request
 *   with `data.required` naming the extensions (the 0.2.5 text: "Clients should expect failures when
 *   attempting to interact with a server that requires an extension the client does not support");
 * - the extensions activated (named and declared) are echoed in the same header of the response, and the
 *   executor sees them (RequestContext.extensions); an undeclared one is not activated.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const GEO = "https://example.com/extensions/geolocation/v1";
const CITE = "https://example.com/extensions/citations/v1";
const EXTENSIONS = [
  { uri: GEO, description: "Where the user is", required: true },
  { uri: CITE, description: "Citations", required: false },
];

/** Replies with the extensions it was told the client activated. */
function extensionEcho() {
  return {
    execute(ctx: { extensions: readonly string[] }, events: { reply(m: string): void }) {
      events.reply(`extensions: ${ctx.extensions.join(" ")}`);
    },
  };
}

const textOf = (value: unknown): string => JSON.stringify(value).match(/extensions: [^"]*/)?.[0] ?? "";

for (const framework of FRAMEWORKS) {
  describe(`required extensions, 1.0.1 on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { rest: true, card: { capabilities: { streaming: true, pushNotifications: false, extensions: EXTENSIONS } }, executor: extensionEcho });
    });
    afterAll(async () => server.close());
    const send = (method: string, headers: Record<string, string>) =>
      rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { message: { role: "ROLE_USER", messageId: `m-${Math.random()}`, parts: [{ text: "hi" }] } } }), {
        "content-type": "application/json",
        "a2a-version": "1.0",
        ...headers,
      });

    it("JSON-RPC without A2A-Extensions → -32008 ExtensionSupportRequiredError naming the extension (§3.3.4)", async () => {
      for (const method of ["SendMessage", "SendStreamingMessage"]) {
        const r = await send(method, {});
        const error = (r.json as Json).error as Json;
        expect(error?.code, r.text).toBe(-32008);
        expect(String(error.message)).toContain(GEO);
        expect(JSON.stringify(error.data)).toContain("EXTENSION_SUPPORT_REQUIRED");
      }
      const other = await send("SendMessage", { "a2a-extensions": CITE });
      expect(((other.json as Json).error as Json)?.code, other.text).toBe(-32008);
    });

    it("JSON-RPC activating it: served; the activated (declared) extensions echoed in A2A-Extensions and seen by the executor", async () => {
      const r = await send("SendMessage", { "a2a-extensions": ` ${GEO},${CITE} , https://example.com/not-declared` });
      expect((r.json as Json).error, r.text).toBeUndefined();
      expect(r.headers.get("a2a-extensions")).toBe(`${GEO}, ${CITE}`);
      expect(textOf((r.json as Json).result)).toBe(`extensions: ${GEO} ${CITE}`);
    });

    it("HTTP+JSON: without it 400 FAILED_PRECONDITION (§5.4); with it served and echoed", async () => {
      const body = JSON.stringify({ message: { role: "ROLE_USER", messageId: "m-rest", parts: [{ text: "hi" }] } });
      const refused = await rawPost(`${server.restUrl}/message:send`, body, { "content-type": "application/json", "a2a-version": "1.0" });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.text).toContain("FAILED_PRECONDITION");
      expect(refused.text).toContain("EXTENSION_SUPPORT_REQUIRED");
      const served = await rawPost(`${server.restUrl}/message:send`, body, { "content-type": "application/json", "a2a-version": "1.0", "a2a-extensions": GEO });
      expect(served.status, served.text).toBe(200);
      expect(served.headers.get("a2a-extensions")).toBe(GEO);
      expect(textOf(served.json)).toBe(`extensions: ${GEO}`);
    });
  });

  describe(`required extensions, 0.3.0 on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { card: { capabilities: { streaming: true, pushNotifications: false, extensions: EXTENSIONS } }, executor: extensionEcho });
    });
    afterAll(async () => server.close());
    const send = (headers: Record<string, string>) =>
      rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: `m-${Math.random()}`, parts: [{ kind: "text", text: "hi" }] } } }), {
        "content-type": "application/json",
        ...headers,
      });

    it("without X-A2A-Extensions → -32600 with data.required naming it (0.3.0 has no ExtensionSupportRequiredError)", async () => {
      const r = await send({});
      expect((r.json as Json).error, r.text).toMatchObject({ code: -32600, data: { required: [GEO], header: "X-A2A-Extensions" } });
    });

    it("with it: served, echoed in X-A2A-Extensions, seen by the executor", async () => {
      const r = await send({ "x-a2a-extensions": GEO });
      expect((r.json as Json).error, r.text).toBeUndefined();
      expect(r.headers.get("x-a2a-extensions")).toBe(GEO);
      expect(textOf((r.json as Json).result)).toBe(`extensions: ${GEO}`);
    });
  });
}

describe("an agent whose extensions are all optional answers every request", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer("1.0.1", "node", { card: { capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: CITE }] } }, executor: extensionEcho });
  });
  afterAll(async () => server.close());
  it("no header, no error, no echo", async () => {
    const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "hi" }] } } }), {
      "content-type": "application/json",
      "a2a-version": "1.0",
    });
    expect((r.json as Json).error, r.text).toBeUndefined();
    expect(r.headers.get("a2a-extensions")).toBeNull();
    expect(textOf((r.json as Json).result)).toBe("extensions: ");
  });
});
