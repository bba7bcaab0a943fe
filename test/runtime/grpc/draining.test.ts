/**
 * gRPC while the server shuts down (issue 34 item 3): once the service's runtime drains (the core's
 * `close({ graceMs })`), every new call, unary or streaming, is refused with UNAVAILABLE (1.0.1 §3.3.2: a
 * temporary failure the client retries, on another instance), before its request is even read.
 */
import grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGrpcBinding, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { binding101, FakeService } from "../../support/grpc/fake-service.js";

let binding: LoadedGrpcBinding;
let server: GrpcServerHandle;
let raw: grpc.Client;
let service: FakeService;
const draining = new AbortController();

beforeAll(async () => {
  const spec = await binding101();
  binding = loadGrpcBinding(spec);
  service = Object.assign(new FakeService(), { runtime: { draining: draining.signal } });
  server = await serveGrpc(spec, service, { logger: { error: () => {} } });
  raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});
afterAll(async () => {
  raw.close();
  await server.close();
});

const metadata = () => {
  const md = new grpc.Metadata();
  md.set("a2a-version", "1.0");
  return md;
};
const encode = (name: string, value: object) => {
  const type: protobuf.Type = binding.root.lookupType(`lf.a2a.v1.${name}`);
  return type.encode(type.fromObject(value)).finish();
};
const unary = (rpc: string, bytes: Uint8Array) =>
  new Promise<grpc.ServiceError | null>((resolve) =>
    raw.makeUnaryRequest(`/lf.a2a.v1.A2AService/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, metadata(), (error) => resolve(error)),
  );
const streaming = (rpc: string, bytes: Uint8Array) =>
  new Promise<grpc.ServiceError | null>((resolve) => {
    const call = raw.makeServerStreamRequest(`/lf.a2a.v1.A2AService/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, metadata());
    call.on("data", () => {});
    call.on("error", (error: grpc.ServiceError) => resolve(error));
    call.on("end", () => resolve(null));
  });

describe("gRPC while draining", () => {
  it("answers before, refuses every call with UNAVAILABLE after the drain began", async () => {
    const get = encode("GetTaskRequest", { id: "t-1" });
    const before = await unary("GetTask", get);
    expect(before?.code).not.toBe(grpc.status.UNAVAILABLE);
    const callsBefore = service.calls.length;
    draining.abort();
    const after = await unary("GetTask", get);
    expect(after?.code).toBe(grpc.status.UNAVAILABLE);
    expect(after?.details).toMatch(/shutting down/);
    const send = await unary("SendMessage", encode("SendMessageRequest", { message: { message_id: "m1", role: 1, parts: [{ text: "hello" }] } }));
    expect(send?.code).toBe(grpc.status.UNAVAILABLE);
    const stream = await streaming("SubscribeToTask", encode("SubscribeToTaskRequest", { id: "t-1" }));
    expect(stream?.code).toBe(grpc.status.UNAVAILABLE);
    // Refused before the service was asked.
    expect(service.calls.length).toBe(callsBefore);
  });
});
