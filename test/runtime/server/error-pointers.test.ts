/**
 * Issue 29 item 6: an error names a field as the binding's request has it. ContentTypeNotSupportedError
 * (-32005; specification-1.0.1.md §3.3.2 and the error tables of §9.5 / §10.6 / §11.6) names the refused part
 * with a pointer: on JSON-RPC it is under the envelope's `/params`, but HTTP+JSON's `POST /message:send` body
 * (§11.3) and gRPC's SendMessageRequest (§10) have no `params`: there the pointer is `/message/parts/0`
 * (0.3.0's proto shapes: `/message/content/0`, specification-0.3.0.md §3.2.3 / §3.5.6).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { A2AError } from "../../../src/runtime/client/client.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { SCHEMA_DIR } from "../../support/project.js";
import { withGrpcInterface } from "../../support/grpc/fake-service.js";
import { modules, rawPost, startServer, testCard, testExecutor, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;
const ONLY_TEXT = { defaultInputModes: ["text/plain"], skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["test"] }] };

describe("HTTP+JSON: the refused part is named in the request body, not under /params", () => {
  let v1: RunningServer;
  let v03: RunningServer;
  beforeAll(async () => {
    v1 = await startServer("1.0.1", "node", { rest: true, card: ONLY_TEXT });
    v03 = await startServer("0.3.0", "node", { rest: true, card: ONLY_TEXT });
  });
  afterAll(async () => {
    await v1.close();
    await v03.close();
  });

  it("1.0.1 POST /message:send: the ErrorInfo's pointer is /message/parts/0", async () => {
    const r = await rawPost(`${v1.restUrl}/message:send`, JSON.stringify({ message: { role: "ROLE_USER", messageId: "m-1", parts: [{ data: { a: 1 } }] } }), { "content-type": "application/json", "a2a-version": "1.0" });
    expect(r.status, r.text).toBe(400);
    const details = ((r.json as Json).error as Json).details as Json[];
    const info = details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo") as Json;
    expect(info, r.text).toMatchObject({ reason: "CONTENT_TYPE_NOT_SUPPORTED", metadata: { pointer: "/message/parts/0" } });
    expect(r.text).not.toContain("/params");
  });

  it("1.0.1 JSON-RPC keeps the envelope's pointer /params/message/parts/0", async () => {
    const r = await rawPost(v1.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { role: "ROLE_USER", messageId: "m-2", parts: [{ data: { a: 1 } }] } } }), { "content-type": "application/json", "a2a-version": "1.0" });
    expect(r.text).toContain('"pointer":"/params/message/parts/0"');
  });

  it("0.3.0 POST /v1/message:send: data.pointer is /message/content/0 (the proto's field)", async () => {
    const r = await rawPost(`${v03.restUrl}/v1/message:send`, JSON.stringify({ message: { role: "ROLE_USER", messageId: "m-3", content: [{ data: { data: { a: 1 } } }] } }));
    expect(r.status, r.text).toBe(400);
    expect(r.json, r.text).toMatchObject({ code: -32005, data: { pointer: "/message/content/0" } });
  });
});

for (const version of ["1.0.1", "0.3.0"] as const) {
  describe(`${version} gRPC: the refused part is named in the request message`, () => {
    let server: GrpcServerHandle;
    let core: { close(): Promise<void> };
    let client: GrpcTransport;
    beforeAll(async () => {
      const m = await modules(version);
      const card = testCard(version, { card: ONLY_TEXT });
      core = m.core.createA2AServer({ card: withGrpcInterface(card) as never, transports: ["GRPC"], executor: testExecutor() as never, rpcPath: "/a2a", logger: { error: () => undefined, warn: () => undefined } });
      const profile = m.protocol.A2A_PROFILE as unknown as { errorCodes: Record<string, number>; methods: Record<string, string> };
      const d = grpcDescriptor(join(SCHEMA_DIR, `a2a-${version}.proto`), Object.values(profile.methods), version);
      const spec = { proto: d.proto, service: d.service, methods: d.methods, errorCodes: profile.errorCodes, ...(version === "0.3.0" ? { shapes: SHAPES_0_3_0 } : {}) };
      server = await serveGrpc(spec, core as never, { logger: { error: () => undefined } });
      client = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: version === "1.0.1" ? { "a2a-version": "1.0" } : {} });
    });
    afterAll(async () => {
      client.close();
      await server.close();
      await core.close();
    });

    it("SendMessage with a data part → ContentTypeNotSupported naming the part without /params", async () => {
      const message =
        version === "1.0.1"
          ? { messageId: "m-g", role: "ROLE_USER", parts: [{ data: { a: 1 } }] }
          : { kind: "message", messageId: "m-g", role: "user", parts: [{ kind: "data", data: { a: 1 } }] };
      const error = await client.call(version === "1.0.1" ? "SendMessage" : "message/send", { message }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(A2AError);
      const text = JSON.stringify((error as A2AError).data);
      expect((error as A2AError).code).toBe(-32005);
      expect(text).toContain(version === "1.0.1" ? '"pointer":"/message/parts/0"' : '"pointer":"/message/content/0"');
      expect(text).not.toContain("/params");
    });
  });
}
