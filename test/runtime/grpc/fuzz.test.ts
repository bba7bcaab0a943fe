import grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGrpcBinding, type LoadedGrpcBinding } from "../../../src/runtime/grpc/binding.js";
import { decodeStatus, STATUS_DETAILS_KEY } from "../../../src/runtime/grpc/google-rpc.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { join } from "node:path";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import type { GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { SCHEMA_DIR } from "../../support/project.js";
import { modules, TEST_AUTH, TEST_TOKEN, testCard, testExecutor } from "../../support/servers.js";
import { binding101, FakeService, withGrpcInterface } from "../../support/grpc/fake-service.js";
import { rng } from "../../support/seeded-random.js";
import { mutate, SEEDS_0_3_0 } from "../../support/grpc/fuzz-seeds.js";

/**
 * Seeded fuzzing of the gRPC binding: valid requests of every unary rpc with their bytes mutated (flipped,
 * truncated, spliced, random), sent with plain grpc-js. Every answer must be OK or a status the binding
 * chose (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, …) with readable google.rpc details; never
 * INTERNAL or UNKNOWN (a crash), never a hang, and the server still answers at the end. Reproducible: the
 * seed is fixed and printed on failure.
 */
const SEED = 0x9a2a;
const REQUESTS = 1_500;


let binding: LoadedGrpcBinding;
let server: GrpcServerHandle;
let client: grpc.Client;
const service = new FakeService();

beforeAll(async () => {
  const spec = await binding101();
  binding = loadGrpcBinding(spec);
  server = await serveGrpc(spec, service, { logger: { error: (m, d) => service.calls.push({ method: `LOGGED ${m} ${String(d)}`, params: null, headers: {} }) } });
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client.close();
  await server.close();
});

const SEEDS: Record<string, object> = {
  SendMessage: { message: { message_id: "m", role: 1, parts: [{ text: "hi" }, { data: { structValue: { fields: { a: { numberValue: 1 } } } } }, { raw: new Uint8Array([1, 2]) }], metadata: { fields: { k: { stringValue: "v" } } } }, configuration: { history_length: 2, accepted_output_modes: ["text/plain"] } },
  GetTask: { id: "task-1", history_length: 1 },
  ListTasks: { context_id: "c", status: 2, page_size: 10, status_timestamp_after: { seconds: 1700000000, nanos: 5 } },
  CancelTask: { id: "task-1" },
  CreateTaskPushNotificationConfig: { task_id: "task-1", url: "https://x.example/h", authentication: { scheme: "Bearer", credentials: "c" } },
  GetTaskPushNotificationConfig: { task_id: "task-1", id: "cfg" },
  ListTaskPushNotificationConfigs: { task_id: "task-1", page_size: 3 },
  DeleteTaskPushNotificationConfig: { task_id: "task-1", id: "cfg" },
  GetExtendedAgentCard: { tenant: "t" },
};

describe("gRPC binding fuzzing", () => {
  it(`${REQUESTS} mutated requests: no crash, every error a chosen status with readable details`, async () => {
    const r = rng(SEED);
    await client_call("SendMessage", encode("SendMessage", SEEDS.SendMessage as object)); // makes task-1 exist
    const rpcs = Object.keys(SEEDS);
    const seen = new Map<string, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const rpc = rpcs[r.int(rpcs.length)] as string;
      const bytes = mutate(encode(rpc, SEEDS[rpc] as object), r);
      const outcome = await client_call(rpc, bytes);
      const key = outcome.error ? grpc.status[outcome.error.code] ?? String(outcome.error.code) : "OK";
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (outcome.error) {
        expect([grpc.status.INTERNAL, grpc.status.UNKNOWN], `seed ${SEED} request ${i} (${rpc}): ${outcome.error.details}`).not.toContain(outcome.error.code);
        expect(outcome.error.details, `seed ${SEED} request ${i} (${rpc})`).not.toMatch(/Cannot read|is not a function|undefined is not/);
        const bin = outcome.error.metadata.get(STATUS_DETAILS_KEY)[0];
        if (bin) expect(() => decodeStatus(binding.root, bin as Buffer)).not.toThrow();
      }
    }
    expect(service.calls.filter((c) => c.method.startsWith("LOGGED"))).toEqual([]);
    // Both kinds of answers happened: the fuzzer reaches the service and is refused at the wire.
    expect(seen.get("OK") ?? 0).toBeGreaterThan(50);
    expect(seen.get("INVALID_ARGUMENT") ?? 0).toBeGreaterThan(50);
    const after = await client_call("GetExtendedAgentCard", new Uint8Array());
    expect(after.error).toBeUndefined();
  });
});

function encode(rpc: string, value: object): Uint8Array {
  const type = binding.rpcs.get(rpc)?.requestType as protobuf.Type;
  return type.encode(type.fromObject(value)).finish();
}


function client_call(rpc: string, bytes: Uint8Array): Promise<{ error?: grpc.ServiceError }> {
  const md = new grpc.Metadata();
  md.set("a2a-version", "1.0");
  return new Promise((resolve) => {
    client.makeUnaryRequest(`/lf.a2a.v1.A2AService/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, md, { deadline: Date.now() + 10_000 }, (error) =>
      resolve(error ? { error } : {}),
    );
  });
}

describe("gRPC binding fuzzing, 0.3.0 in front of the real server core", () => {

  it("1,000 mutated 0.3.0 requests: no crash, no adapter failure leaking as a message", async () => {
    const m = await modules("0.3.0");
    const profile = m.protocol.A2A_PROFILE as unknown as { errorCodes: Record<string, number>; methods: Record<string, string> };
    const d = grpcDescriptor(join(SCHEMA_DIR, "a2a-0.3.0.proto"), Object.values(profile.methods), "0.3.0");
    const spec: GrpcBindingSpec = { proto: d.proto, service: d.service, methods: d.methods, errorCodes: profile.errorCodes, shapes: SHAPES_0_3_0 };
    const root = loadGrpcBinding(spec);
    const card = testCard("0.3.0", { extendedCard: { name: "Extended" } });
    const logged: unknown[] = [];
    const core = m.core.createA2AServer({
      card: withGrpcInterface(card) as never,
      transports: ["GRPC"],
      executor: testExecutor() as never,
      rpcPath: "/a2a",
      extendedCard: card as never,
      // The card declares the extended card: a security scheme is required (§13.3), the requests carry its token.
      auth: TEST_AUTH as never,
      pushNotifications: { allow: ["127.0.0.1"], retries: 0, timeoutMs: 200 },
      logger: { error: (message: string, detail?: unknown) => logged.push([message, detail]), warn: () => undefined },
    });
    const authorized = new grpc.Metadata();
    authorized.set("authorization", `Bearer ${TEST_TOKEN}`);
    const handle = await serveGrpc(spec, core as never, { logger: { error: (message, detail) => logged.push([message, detail]) } });
    const c = new grpc.Client(`127.0.0.1:${handle.port}`, grpc.credentials.createInsecure());
    const callRaw = (rpc: string, bytes: Uint8Array) =>
      new Promise<grpc.ServiceError | null>((resolve) => c.makeUnaryRequest(`/a2a.v1.A2AService/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, authorized.clone(), { deadline: Date.now() + 10_000 }, (e) => resolve(e)));
    try {
      const r = rng(SEED + 30);
      const rpcs = Object.keys(SEEDS_0_3_0);
      let ok = 0;
      for (let i = 0; i < 1_000; i++) {
        const rpc = rpcs[r.int(rpcs.length)] as string;
        const type = root.rpcs.get(rpc)?.requestType as protobuf.Type;
        const error = await callRaw(rpc, mutate(type.encode(type.fromObject(SEEDS_0_3_0[rpc] as object)).finish(), r));
        if (!error) ok++;
        else {
          expect([grpc.status.INTERNAL, grpc.status.UNKNOWN], `seed ${SEED + 30} request ${i} (${rpc}): ${error.details}`).not.toContain(error.code);
          expect(error.details, `seed ${SEED + 30} request ${i} (${rpc})`).not.toMatch(/Cannot read|is not a function|undefined is not/);
        }
      }
      expect(ok).toBeGreaterThan(30);
      expect(logged).toEqual([]);
    } finally {
      c.close();
      await handle.close();
      await core.close();
    }
  });
});
