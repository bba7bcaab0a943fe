import grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { binding101, FakeService } from "../../support/grpc/fake-service.js";

/**
 * gRPC server reflection (`reflection: true`): what grpcurl and similar tools use to discover the
 * A2AService without its proto. Checked with a reflection client built from @grpc/reflection's own proto.
 */
type ReflectionResponse = { listServicesResponse?: { service: Array<{ name: string }> }; fileDescriptorResponse?: { fileDescriptorProto: Buffer[] }; errorResponse?: unknown };

let server: GrpcServerHandle;
let plain: GrpcServerHandle;

beforeAll(async () => {
  const spec = await binding101();
  server = await serveGrpc(spec, new FakeService(), { reflection: true });
  plain = await serveGrpc(spec, new FakeService());
});
afterAll(async () => {
  await server.close();
  await plain.close();
});

function ask(port: number, requests: object[]): Promise<{ responses: ReflectionResponse[]; error?: grpc.ServiceError }> {
  const dir = dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json"));
  const definition = loadSync(join(dir, "build", "proto", "grpc", "reflection", "v1alpha", "reflection.proto"));
  const Reflection = (grpc.loadPackageDefinition(definition) as unknown as { grpc: { reflection: { v1alpha: { ServerReflection: grpc.ServiceClientConstructor } } } }).grpc.reflection.v1alpha.ServerReflection;
  const client = new Reflection(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const call = (client as unknown as { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse> }).ServerReflectionInfo();
  const responses: ReflectionResponse[] = [];
  return new Promise((resolve) => {
    call.on("data", (response: ReflectionResponse) => {
      responses.push(response);
      if (responses.length === requests.length) call.end();
    });
    call.on("error", (error: grpc.ServiceError) => {
      client.close();
      resolve({ responses, error });
    });
    call.on("end", () => {
      client.close();
      resolve({ responses });
    });
    for (const request of requests) call.write(request);
  });
}

describe("gRPC server reflection", () => {
  it("lists the A2AService and describes it from the emitted proto data", async () => {
    const { responses, error } = await ask(server.port, [{ listServices: "" }, { fileContainingSymbol: "lf.a2a.v1.A2AService" }]);
    expect(error).toBeUndefined();
    expect(responses[0]?.listServicesResponse?.service.map((s) => s.name)).toContain("lf.a2a.v1.A2AService");
    const files = responses[1]?.fileDescriptorResponse?.fileDescriptorProto ?? [];
    expect(files.length).toBeGreaterThan(0);
    expect(Buffer.concat(files).toString("latin1")).toContain("SubscribeToTask");
  });

  it("is off by default: the reflection service is UNIMPLEMENTED", async () => {
    const { error } = await ask(plain.port, [{ listServices: "" }]);
    expect(error?.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});
