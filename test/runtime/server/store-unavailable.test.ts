/**
 * Issue 29 item 7: a store outage is a temporary failure. specification-1.0.1.md §3.3.2 "System Errors":
 * servers SHOULD return appropriate codes for temporary failures vs. permanent errors, MAY include retry
 * guidance (Retry-After in HTTP); its examples are HTTP 503, gRPC UNAVAILABLE, JSON-RPC -32603. So:
 * HTTP+JSON answers 503 with Retry-After (1.0: google.rpc.Status `UNAVAILABLE`), gRPC UNAVAILABLE, and
 * JSON-RPC keeps -32603 (the only code §3.3.2 gives it; 0.3.0 §8.1 too) with the retry guidance in its data.
 */
import grpc from "@grpc/grpc-js";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import { serveGrpc, type GrpcServerHandle } from "../../../src/runtime/grpc/server.js";
import { SHAPES_0_3_0 } from "../../../src/runtime/wire/shapes-0.3.0.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";
import { StoreUnavailableError } from "../../../src/runtime/stores/errors.js";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";
import { SCHEMA_DIR } from "../../support/project.js";
import { withGrpcInterface } from "../../support/grpc/fake-service.js";
import { modules, rawPost, startServer, testCard, testExecutor, type RunningServer } from "../../support/servers.js";

type Json = Record<string, unknown>;

/** An in-memory store whose task store throws the engines' "unavailable" error while `down` is set. */
function flakyStore(): { store: A2AStore; setDown(down: boolean): void } {
  const inner = new InMemoryStore();
  let down = false;
  const tasks = new Proxy(inner.tasks, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (down) throw new StoreUnavailableError("test", "connection refused");
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const store = Object.create(inner, { tasks: { value: tasks } }) as A2AStore;
  return { store, setDown: (d) => void (down = d) };
}

describe("store unavailable: HTTP+JSON and JSON-RPC", () => {
  let v1: RunningServer;
  let v03: RunningServer;
  const flaky1 = flakyStore();
  const flaky03 = flakyStore();
  beforeAll(async () => {
    v1 = await startServer("1.0.1", "node", { rest: true, options: { store: flaky1.store } });
    v03 = await startServer("0.3.0", "node", { rest: true, options: { store: flaky03.store } });
    flaky1.setDown(true);
    flaky03.setDown(true);
  });
  afterAll(async () => {
    flaky1.setDown(false);
    flaky03.setDown(false);
    await v1.close();
    await v03.close();
  });

  it("1.0.1 HTTP+JSON: 503 with Retry-After and status UNAVAILABLE", async () => {
    const r = await fetch(`${v1.restUrl}/tasks/t-1`, { headers: { "a2a-version": "1.0" } });
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body)).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(body.error).toMatchObject({ code: 503, status: "UNAVAILABLE", message: "The task store is unavailable; try again later" });
  });

  it("1.0.1 HTTP+JSON SendMessage: 503 too", async () => {
    const r = await rawPost(`${v1.restUrl}/message:send`, JSON.stringify({ message: { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "task" }] } }), { "content-type": "application/json", "a2a-version": "1.0" });
    expect(r.status, r.text).toBe(503);
  });

  it("0.3.0 HTTP+JSON: 503 with Retry-After, the A2A error object -32603", async () => {
    const r = await fetch(`${v03.restUrl}/v1/tasks/t-1`);
    const body = (await r.json()) as Json;
    expect(r.status, JSON.stringify(body)).toBe(503);
    expect(r.headers.get("retry-after")).toBe("5");
    expect(body).toMatchObject({ code: -32603, data: { retryAfterSeconds: 5 } });
  });

  it("JSON-RPC: -32603 (HTTP 200) with the retry guidance in the data", async () => {
    const r1 = await rawPost(v1.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t-1" } }), { "content-type": "application/json", "a2a-version": "1.0" });
    expect(r1.status).toBe(200);
    expect((r1.json as Json).error, r1.text).toMatchObject({ code: -32603, message: "The task store is unavailable; try again later" });
    expect(r1.text).toContain("retryAfterSeconds");
    const r03 = await rawPost(v03.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "t-1" } }));
    expect((r03.json as Json).error, r03.text).toEqual({ code: -32603, message: "The task store is unavailable; try again later", data: { retryAfterSeconds: 5 } });
  });
});

for (const version of ["1.0.1", "0.3.0"] as const) {
  describe(`store unavailable: ${version} gRPC`, () => {
    let server: GrpcServerHandle;
    let core: { close(): Promise<void> };
    let raw: grpc.Client;
    const flaky = flakyStore();
    beforeAll(async () => {
      const m = await modules(version);
      core = m.core.createA2AServer({ card: withGrpcInterface(testCard(version)) as never, transports: ["GRPC"], executor: testExecutor() as never, store: flaky.store as never, logger: { error: () => undefined, warn: () => undefined } });
      const profile = m.protocol.A2A_PROFILE as unknown as { errorCodes: Record<string, number>; methods: Record<string, string> };
      const d = grpcDescriptor(join(SCHEMA_DIR, `a2a-${version}.proto`), Object.values(profile.methods), version);
      server = await serveGrpc({ proto: d.proto, service: d.service, methods: d.methods, errorCodes: profile.errorCodes, ...(version === "0.3.0" ? { shapes: SHAPES_0_3_0 } : {}) }, core as never, { logger: { error: () => undefined } });
      raw = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
      flaky.setDown(true);
    });
    afterAll(async () => {
      flaky.setDown(false);
      raw.close();
      await server.close();
      await core.close();
    });

    it("GetTask → UNAVAILABLE", async () => {
      // GetTaskRequest: 1.0.1 `string id = 2`, 0.3.0 `string name = 1` ("tasks/{id}").
      const text = version === "1.0.1" ? "t-1" : "tasks/t-1";
      const bytes = Buffer.concat([Buffer.from([version === "1.0.1" ? 0x12 : 0x0a, text.length]), Buffer.from(text)]);
      const md = new grpc.Metadata();
      if (version === "1.0.1") md.set("a2a-version", "1.0");
      const service = version === "1.0.1" ? "lf.a2a.v1.A2AService" : "a2a.v1.A2AService";
      const error = await new Promise<grpc.ServiceError | undefined>((resolve) =>
        raw.makeUnaryRequest(`/${service}/GetTask`, (b: Buffer) => b, (b: Buffer) => b, bytes, md, (e) => resolve(e ?? undefined)),
      );
      expect(error?.code, error?.details).toBe(grpc.status.UNAVAILABLE);
      expect(error?.details).toBe("The task store is unavailable; try again later");
    });
  });
}
