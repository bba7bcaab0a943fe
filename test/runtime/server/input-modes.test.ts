/**
 * ContentTypeNotSupportedError (issue 15 item 5): a message part whose media type the agent does not
 * accept (its card's `defaultInputModes`, or a skill's `inputModes`) is refused with the version's
 * ContentTypeNotSupportedError (-32005: specification-1.0.1.md §3.3.2 and the error table of §9.5 /
 * §11.6 "ContentTypeNotSupportedError"; specification-0.3.0.md §8.2), naming the part; a part it accepts
 * is served. Every adapter; JSON-RPC (0.3.0, 1.0.1) and HTTP+JSON (1.0.1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, rawPost, startServer, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const CARD = { defaultInputModes: ["text/plain"], skills: [{ id: "look", name: "Look", description: "Looks at images", tags: ["test"], inputModes: ["image/*"] }] };

for (const framework of FRAMEWORKS) {
  describe(`input modes, 0.3.0 JSON-RPC on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("0.3.0", framework, { card: CARD });
    });
    afterAll(async () => server.close());
    const send = async (parts: Json[]) => {
      const r = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", role: "user", messageId: `m-${Math.random()}`, parts } } }));
      return { text: r.text, ...(r.json as Json) } as Json & { text: string };
    };

    it("a PDF file part (not in defaultInputModes nor a skill's inputModes) → -32005 naming the part", async () => {
      const r = await send([{ kind: "text", text: "hello" }, { kind: "file", file: { uri: "https://example.com/a.pdf", mimeType: "application/pdf" } }]);
      expect(r.error, r.text).toMatchObject({ code: -32005, data: { pointer: "/params/message/parts/1", mediaType: "application/pdf" } });
    });
    it("a data part (application/json) → -32005", async () => {
      const r = await send([{ kind: "data", data: { a: 1 } }]);
      expect(r.error, r.text).toMatchObject({ code: -32005, data: { pointer: "/params/message/parts/0" } });
    });
    it("text, and an image a skill's inputModes accepts (image/*), are served", async () => {
      const r = await send([{ kind: "text", text: "hello" }, { kind: "file", file: { uri: "https://example.com/a.png", mimeType: "IMAGE/PNG; q=1" } }]);
      expect(r.error, r.text).toBeUndefined();
      expect(r.result).toBeDefined();
    });
  });

  describe(`input modes, 1.0.1 JSON-RPC and HTTP+JSON on ${framework}`, () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer("1.0.1", framework, { card: CARD, rest: true });
    });
    afterAll(async () => server.close());
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    const message = (parts: Json[]) => ({ message: { role: "ROLE_USER", messageId: `m-${Math.random()}`, parts } });
    const reason = (details: unknown) => (Array.isArray(details) ? (details as Json[]).map((d) => d.reason) : []);

    it("JSON-RPC: a PDF part → -32005 (ErrorInfo CONTENT_TYPE_NOT_SUPPORTED) naming the part; an image part is served", async () => {
      const bad = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: message([{ url: "https://example.com/a.pdf", mediaType: "application/pdf" }]) }), headers);
      const error = (bad.json as Json).error as Json;
      expect(error?.code, bad.text).toBe(-32005);
      expect(reason(error.data)).toContain("CONTENT_TYPE_NOT_SUPPORTED");
      expect(bad.text).toContain("/params/message/parts/0");
      const ok = await rawPost(server.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: message([{ url: "https://example.com/a.png", mediaType: "image/png" }]) }), headers);
      expect((ok.json as Json).error, ok.text).toBeUndefined();
    });

    it("HTTP+JSON: a data part → an error with ErrorInfo CONTENT_TYPE_NOT_SUPPORTED; a text part is served", async () => {
      const bad = await rawPost(`${server.restUrl}/message:send`, JSON.stringify(message([{ data: { a: 1 } }])), headers);
      expect(bad.status, bad.text).toBeGreaterThanOrEqual(400);
      expect(reason(((bad.json as Json).error as Json)?.details), bad.text).toContain("CONTENT_TYPE_NOT_SUPPORTED");
      const ok = await rawPost(`${server.restUrl}/message:send`, JSON.stringify(message([{ text: "hello" }])), headers);
      expect(ok.status, ok.text).toBe(200);
    });
  });
}
