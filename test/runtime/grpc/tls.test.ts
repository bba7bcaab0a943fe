import grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2ATransportError } from "../../../src/runtime/client/client.js";
import type { GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import { GrpcTransport } from "../../../src/runtime/grpc/client-transport.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { binding101, FakeService } from "../../support/grpc/fake-service.js";

/** gRPC over TLS (schema/specification-1.0.1.md §10.1: "gRPC over HTTP/2 with TLS"), with a test certificate. */
const FIXTURES = join(import.meta.dirname, "fixtures");
const cert = readFileSync(join(FIXTURES, "tls-cert.pem"));
const key = readFileSync(join(FIXTURES, "tls-key.pem"));
const V = { "a2a-version": "1.0" };

let spec: GrpcBindingSpec;
let server: GrpcServerHandle;

beforeAll(async () => {
  spec = await binding101();
  server = await serveGrpc(spec, new FakeService(), { credentials: grpc.ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }]) });
});
afterAll(async () => {
  await server.close();
});

describe("gRPC over TLS", () => {
  it("an https:// target is TLS: with the server's certificate trusted, calls and streams work", async () => {
    const transport = new GrpcTransport(spec, `https://localhost:${server.port}/a2a`, { headers: V, credentials: grpc.credentials.createSsl(cert) });
    try {
      expect(await transport.call("SendMessage", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } })).toMatchObject({ message: { parts: [{ text: "hello!" }] } });
      const events: unknown[] = [];
      for await (const event of transport.stream("SendStreamingMessage", { message: { messageId: "m2", role: "ROLE_USER", parts: [{ text: "go" }] } })) events.push(event);
      expect(events).toHaveLength(4);
    } finally {
      transport.close();
    }
  });

  it("an untrusted certificate, or plain HTTP/2 against TLS, is a transport error", async () => {
    const untrusted = new GrpcTransport(spec, `https://localhost:${server.port}`, { headers: V, timeoutMs: 3_000 });
    const plain = new GrpcTransport(spec, `127.0.0.1:${server.port}`, { headers: V, timeoutMs: 3_000 });
    try {
      await expect(untrusted.call("GetExtendedAgentCard", {})).rejects.toBeInstanceOf(A2ATransportError);
      await expect(plain.call("GetExtendedAgentCard", {})).rejects.toBeInstanceOf(A2ATransportError);
    } finally {
      untrusted.close();
      plain.close();
    }
  });
});
