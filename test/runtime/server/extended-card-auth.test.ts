import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { ROOT } from "../../support/project.js";
import { FRAMEWORKS, modules, startServer, TEST_AUTH, TEST_TOKEN, testCard, testExecutor, type RunningServer } from "../../support/servers.js";

/**
 * The extended agent card is for authenticated callers only: specification-1.0.1.md §13.3 ("GetExtendedAgentCard
 * … MUST require authentication"); 0.3.0 names it the *authenticated* extended card
 * (`supportsAuthenticatedExtendedCard`, specification-0.3.0.md §5.5). A card that declares it without any
 * security scheme would hand it to anonymous callers (hardening issue 16, item 4), so the server refuses to
 * start, saying why; with a scheme, an anonymous call is refused on every binding.
 */
type Json = Record<string, unknown>;

const VERSIONS = [
  { version: "1.0.1", field: "capabilities.extendedAgentCard", proto: "a2a-1.0.1.proto", method: "GetExtendedAgentCard", rest: "/extendedAgentCard", headers: { "a2a-version": "1.0" } as Record<string, string> },
  { version: "0.3.0", field: "supportsAuthenticatedExtendedCard", proto: "a2a-0.3.0.proto", method: "agent/getAuthenticatedExtendedCard", rest: "/v1/card", headers: {} as Record<string, string> },
];

/** The card of the version declaring the extended card, its security schemes removed, listing `bindings`. */
function unsecuredCard(version: string, bindings: readonly string[]): Json {
  const card = testCard(version, { extendedCard: { name: "Extended" } });
  for (const key of ["securitySchemes", "security", "securityRequirements"]) delete card[key];
  const url = "http://127.0.0.1:1/a2a";
  if (version.startsWith("1.")) card.supportedInterfaces = bindings.map((protocolBinding) => ({ url: protocolBinding === "GRPC" ? "127.0.0.1:1" : url, protocolBinding, protocolVersion: "1.0" }));
  else card.additionalInterfaces = bindings.map((transport) => ({ url: transport === "GRPC" ? "127.0.0.1:1" : url, transport }));
  return card;
}

for (const v of VERSIONS) {
  describe(`A2A ${v.version}: a card declaring the extended card without a security scheme`, () => {
    for (const binding of ["JSONRPC", "HTTP+JSON", "GRPC"]) {
      it(`is refused at startup, naming ${v.field} and §13.3 (card listing ${binding})`, async () => {
        const m = await modules(v.version);
        const card = unsecuredCard(v.version, binding === "JSONRPC" ? ["JSONRPC"] : ["JSONRPC", binding]);
        const create = () =>
          m.core.createA2AServer({
            card: card as never,
            executor: testExecutor() as never,
            extendedCard: { ...card, name: "Extended" } as never,
            ...(binding === "GRPC" ? { transports: ["GRPC"] } : {}),
          });
        expect(create).toThrow(new RegExp(`declares an extended card \\(${v.field.replace(".", "\\.")}: true\\) but no security scheme.*§13\\.3`));
      });
    }

    for (const framework of FRAMEWORKS) {
      it(`is refused before the ${framework} adapter serves anything`, async () => {
        // startServer gives a card with an extended card the test bearer scheme; without it, startup fails.
        await expect(startServer(v.version, framework, { extendedCard: { name: "Extended" }, card: { securitySchemes: {}, ...(v.version === "0.3.0" ? { security: [] } : { securityRequirements: [] }) } })).rejects.toThrow(/no security scheme/);
      });
    }
  });

  describe(`A2A ${v.version}: with a security scheme, the extended card is never served anonymously`, () => {
    const running: Array<{ server: RunningServer; framework: string }> = [];
    let grpc: GrpcServerHandle;
    let grpcCore: { close(): Promise<void> };
    beforeAll(async () => {
      for (const framework of FRAMEWORKS) running.push({ framework, server: await startServer(v.version, framework, { extendedCard: { name: "Extended" }, rest: true }) });
      const m = await modules(v.version);
      const card = testCard(v.version, { extendedCard: { name: "Extended" } });
      if (v.version.startsWith("1.")) (card.supportedInterfaces as Json[]).push({ url: "127.0.0.1:1", protocolBinding: "GRPC", protocolVersion: "1.0" });
      else card.additionalInterfaces = [{ url: String(card.url), transport: "JSONRPC" }, { url: "127.0.0.1:1", transport: "GRPC" }];
      const core = m.core.createA2AServer({ card: card as never, executor: testExecutor() as never, extendedCard: { ...card, name: "Extended" } as never, auth: TEST_AUTH as never, transports: ["GRPC"], logger: { error: () => undefined } });
      grpcCore = core;
      grpc = await serveGrpc(grpcSpec(v.version, m.protocol.A2A_PROFILE as never, v.proto), core as never);
    });
    afterAll(async () => {
      for (const { server } of running) await server.close();
      await grpc.close();
      await grpcCore.close();
    });

    it("JSON-RPC and HTTP+JSON on every adapter: 401 without credentials, the card with them", async () => {
      for (const { server, framework } of running) {
        const rpc = (headers: Record<string, string>) =>
          fetch(server.rpcUrl, { method: "POST", headers: { "content-type": "application/json", ...v.headers, ...headers }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: v.method }) });
        expect((await rpc({})).status, framework).toBe(401);
        expect(((await (await rpc({ authorization: `Bearer ${TEST_TOKEN}` })).json()) as { result: Json }).result.name, framework).toBe("Extended");
        const rest = (headers: Record<string, string>) => fetch(server.restUrl + v.rest, { headers: { ...v.headers, ...headers } });
        expect((await rest({})).status, framework).toBe(401);
        expect(((await (await rest({ authorization: `Bearer ${TEST_TOKEN}` })).json()) as Json).name, framework).toBe("Extended");
      }
    });

    it("gRPC: UNAUTHENTICATED without credentials, the card with them", async () => {
      const m = await modules(v.version);
      const spec = grpcSpec(v.version, m.protocol.A2A_PROFILE as never, v.proto);
      const anonymous = new GrpcTransport(spec, `127.0.0.1:${grpc.port}`, { headers: v.headers });
      const authorized = new GrpcTransport(spec, `127.0.0.1:${grpc.port}`, { headers: v.headers, auth: { type: "bearer", token: TEST_TOKEN } });
      try {
        await expect(anonymous.call(v.method, v.version.startsWith("1.") ? {} : undefined)).rejects.toMatchObject({ code: -32000 });
        expect(((await authorized.call(v.method, v.version.startsWith("1.") ? {} : undefined)) as Json).name).toBe("Extended");
      } finally {
        anonymous.close();
        authorized.close();
      }
    });
  });
}

function grpcSpec(version: string, profile: { errorCodes: Record<string, number>; methods: Record<string, string> }, proto: string) {
  const d = grpcDescriptor(join(ROOT, "schema", proto), Object.values(profile.methods), version);
  return { proto: d.proto, service: d.service, methods: d.methods, errorCodes: profile.errorCodes, ...(version === "0.3.0" ? { shapes: SHAPES_0_3_0 } : {}) };
}
