import grpc from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { protoPath } from "grpc-health-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import { serveGrpc } from "../../../src/runtime/grpc/server.js";
import { binding101, FakeService } from "../../support/grpc/fake-service.js";
import { Health as Readiness } from "../../../src/runtime/service/health.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";

/** The standard gRPC health check (grpc.health.v1) beside the A2AService (`health: true`). */
type HealthClient = grpc.Client & {
  Check(request: { service: string }, callback: (error: grpc.ServiceError | null, response?: { status: string }) => void): void;
  Watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
};

let spec: GrpcBindingSpec;
const Health = () => (grpc.loadPackageDefinition(loadSync(protoPath, { enums: String })) as unknown as { grpc: { health: { v1: { Health: new (address: string, credentials: grpc.ChannelCredentials) => HealthClient } } } }).grpc.health.v1.Health;

beforeAll(async () => {
  spec = await binding101();
});

describe("gRPC health service", () => {
  it("Check: SERVING for the server and the A2A service; NOT_FOUND for another; Watch sees NOT_SERVING on close()", async () => {
    const server = await serveGrpc(spec, new FakeService(), { health: true });
    const client = new (Health())(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    const check = (service: string) => new Promise<{ status?: string; code?: number }>((resolve) => client.Check({ service }, (error, response) => resolve(error ? { code: error.code } : { status: response?.status })));
    try {
      expect(await check("")).toEqual({ status: "SERVING" });
      expect(await check("lf.a2a.v1.A2AService")).toEqual({ status: "SERVING" });
      expect(await check("other.Service")).toEqual({ code: grpc.status.NOT_FOUND });
      const seen: string[] = [];
      const watch = client.Watch({ service: "lf.a2a.v1.A2AService" });
      watch.on("error", () => {});
      watch.on("data", (m: { status: string }) => seen.push(m.status));
      await until(() => seen.length === 1);
      const closing = server.close(200);
      await until(() => seen.length === 2);
      await closing;
      expect(seen).toEqual(["SERVING", "NOT_SERVING"]);
    } finally {
      client.close();
    }
  });

  it("served for a server core, it agrees with readiness (/readyz): NOT_SERVING while the store does not answer and once shutting down", async () => {
    let up = true;
    const store = Object.assign(new InMemoryStore(), {
      ping: async () => {
        if (!up) throw new Error("engine gone");
      },
    });
    const draining = new AbortController();
    const readiness = new Readiness({ store, draining: draining.signal }, { checkEveryMs: 20 });
    // The core's shape (A2AServerCore: its service and its readiness).
    const server = await serveGrpc(spec, { service: new FakeService(), health: readiness }, { health: true });
    const client = new (Health())(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    const seen: string[] = [];
    const watch = client.Watch({ service: "lf.a2a.v1.A2AService" });
    watch.on("error", () => {});
    watch.on("data", (m: { status: string }) => seen.push(m.status));
    try {
      await until(() => seen.at(-1) === "SERVING");
      up = false;
      await until(() => seen.at(-1) === "NOT_SERVING");
      expect((await readiness.readiness()).status).toBe("not ready");
      up = true;
      await until(() => seen.at(-1) === "SERVING");
      draining.abort();
      await until(() => seen.at(-1) === "NOT_SERVING");
      expect(await readiness.readiness()).toMatchObject({ status: "not ready", draining: true, store: { status: "up" } });
      expect(seen).toEqual(["SERVING", "NOT_SERVING", "SERVING", "NOT_SERVING"]);
    } finally {
      client.close();
      await server.close(100);
    }
  });

  it("is off by default", async () => {
    const server = await serveGrpc(spec, new FakeService());
    const client = new (Health())(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      const code = await new Promise<number | undefined>((resolve) => client.Check({ service: "" }, (error) => resolve(error?.code)));
      expect(code).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      client.close();
      await server.close();
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error("condition not met in time");
}
