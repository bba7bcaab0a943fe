import grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadGrpcBinding, type GrpcBindingSpec, type LoadedGrpcBinding } from "../../src/runtime/grpc/binding.js";
import { decodeStatus, STATUS_DETAILS_KEY } from "../../src/runtime/grpc/google-rpc.js";
import { TEST_TOKEN } from "../support/servers.js";
import { compatOutput, startCompatAgent, type CompatAgent } from "../support/compat/agent.js";
import { rng } from "../support/seeded-random.js";
import { mutate, SEEDS_0_3_0 } from "../support/grpc/fuzz-seeds.js";

/**
 * Seeded fuzzing of a compat agent's gRPC port (issue 9): 0.3.0's `a2a.v1.A2AService` (the compat service,
 * converting to and from 1.0.1) and 1.0.1's `lf.a2a.v1.A2AService` on one grpc-js server, valid requests
 * of both with their bytes mutated (flipped, truncated, spliced, random) and every `a2a-version` (none,
 * 0.3, 1.0, unknown). Every answer must be OK or a status the binding chose with readable google.rpc
 * details; never INTERNAL or UNKNOWN (a crash in a conversion), never a hang; both services answer at the
 * end. Reproducible: the seed is fixed.
 */
const SEED = 0x3c0a;
const REQUESTS = 800;


const SEEDS: Record<string, Record<string, object>> = {
  "a2a.v1.A2AService": SEEDS_0_3_0,
  "lf.a2a.v1.A2AService": {
    SendMessage: { message: { message_id: "m", role: 1, parts: [{ text: "task" }, { data: { structValue: { fields: { a: { numberValue: 1 } } } } }] }, configuration: { history_length: 2 } },
    GetTask: { id: "t-1", history_length: 1 },
    ListTasks: { context_id: "c", status: 2, page_size: 10 },
    CancelTask: { id: "t-1" },
    CreateTaskPushNotificationConfig: { task_id: "t-1", url: "http://127.0.0.1:9/h" },
    GetTaskPushNotificationConfig: { task_id: "t-1", id: "c" },
    ListTaskPushNotificationConfigs: { task_id: "t-1", page_size: 3 },
    DeleteTaskPushNotificationConfig: { task_id: "t-1", id: "c" },
    GetExtendedAgentCard: {},
  },
};
const VERSIONS = [undefined, undefined, "0.3", "1.0", "1.0", "2.0", "garbage"];


describe("gRPC fuzzing of a compat agent (0.3's and 1.0's services on one port)", () => {
  let agent: CompatAgent;
  let client: grpc.Client;
  const bindings = new Map<string, LoadedGrpcBinding>();
  beforeAll(async () => {
    const out = await compatOutput();
    for (const file of ["grpc.ts", "compat/a2a-0.3.0/grpc.ts"]) {
      const spec = ((await import(join(out.dir, file))) as { A2A_GRPC_BINDING: GrpcBindingSpec }).A2A_GRPC_BINDING;
      bindings.set(spec.service, loadGrpcBinding(spec));
    }
    // With an extended card (hence the bearer scheme): the card rpcs answer too; every call carries the token.
    agent = await startCompatAgent("node", { bindings: ["GRPC"], extendedCard: { name: "Extended" } });
    client = new grpc.Client(agent.grpcTarget, grpc.credentials.createInsecure());
  }, 120_000);
  afterAll(async () => {
    client.close();
    await agent.close();
  });

  const call = (service: string, rpc: string, bytes: Uint8Array, version: string | undefined) => {
    const md = new grpc.Metadata();
    md.set("authorization", `Bearer ${TEST_TOKEN}`);
    if (version !== undefined) md.set("a2a-version", version);
    return new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest(`/${service}/${rpc}`, (b: Uint8Array) => Buffer.from(b), (b: Buffer) => b, bytes, md, { deadline: Date.now() + 10_000 }, (error) => resolve(error)),
    );
  };
  const encode = (service: string, rpc: string, value: object) => {
    const type = bindings.get(service)?.rpcs.get(rpc)?.requestType as protobuf.Type;
    return type.encode(type.fromObject(value)).finish();
  };

  it(`${REQUESTS} mutated requests to both services: no crash, every error a chosen status with readable details`, { timeout: 240_000 }, async () => {
    const r = rng(SEED);
    const services = Object.keys(SEEDS);
    const seen = new Map<string, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const service = services[r.int(services.length)] as string;
      const rpcs = Object.keys(SEEDS[service] as Record<string, object>);
      const rpc = rpcs[r.int(rpcs.length)] as string;
      // Mostly the service's own version (0.3: none or "0.3"; 1.0: "1.0"), else any.
      const version = r.next() < 0.7 ? (service === "a2a.v1.A2AService" ? (r.next() < 0.5 ? undefined : "0.3") : "1.0") : VERSIONS[r.int(VERSIONS.length)];
      const error = await call(service, rpc, mutate(encode(service, rpc, (SEEDS[service] as Record<string, object>)[rpc] as object), r), version);
      const key = error ? (grpc.status[error.code] ?? String(error.code)) : "OK";
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (error) {
        const what = `seed ${SEED} request ${i} (${service}/${rpc}, a2a-version ${version ?? "none"}): ${error.details}`;
        expect([grpc.status.INTERNAL, grpc.status.UNKNOWN], what).not.toContain(error.code);
        expect(error.details, what).not.toMatch(/Cannot read|is not a function|undefined is not/);
        const bin = error.metadata.get(STATUS_DETAILS_KEY)[0];
        if (bin) expect(() => decodeStatus((bindings.get(service) as LoadedGrpcBinding).root, bin as Buffer)).not.toThrow();
      }
    }
    // The fuzzer reached both the services' answers and their refusals (wire and version).
    expect(seen.get("OK") ?? 0).toBeGreaterThan(20);
    expect(seen.get("INVALID_ARGUMENT") ?? 0).toBeGreaterThan(30);
    expect(seen.get("FAILED_PRECONDITION") ?? 0).toBeGreaterThan(10);
    expect(await call("a2a.v1.A2AService", "SendMessage", encode("a2a.v1.A2AService", "SendMessage", { request: { message_id: "end", role: 1, content: [{ text: "hello" }] } }), undefined)).toBeNull();
    expect(await call("lf.a2a.v1.A2AService", "SendMessage", encode("lf.a2a.v1.A2AService", "SendMessage", { message: { message_id: "end", role: 1, parts: [{ text: "hello" }] } }), "1.0")).toBeNull();
  });
});
