/**
 * The calls and checks of an agent's gRPC interface (1.0.1 §10), with @grpc/grpc-js and the bundled 1.0.1
 * proto: each rpc's request encoded from verify's JSON, each response decoded to ProtoJSON and validated
 * against the version's schema (wrapped as JSON-RPC's result: the same shapes, §5.5); errors read from the
 * gRPC status and its google.rpc details (§10.6). Loaded only when the card lists a GRPC interface (grpc-js
 * is an optional peer dependency of a2a-codegen).
 */
import grpc from "@grpc/grpc-js";
import { grpcDescriptor, irSourcePath } from "../emit/grpc.js";
import type { ProtocolIR } from "../ir/types.js";
import { decodeResult, encodeParams, loadGrpcBinding, type GrpcBindingSpec, type LoadedGrpcBinding } from "../runtime/grpc/binding.js";
import { grpcEndpoint } from "../runtime/grpc/client-transport.js";
import { decodeStatus, STATUS_DETAILS_KEY, type ErrorDetail } from "../runtime/grpc/google-rpc.js";
import { A2A_ERROR_DOMAIN, GRPC_STATUS } from "../runtime/grpc/status.js";
import { CHECKS } from "./checks.js";
import { DIALECT_1_0 } from "./dialects.js";
import { runOwnerChecks, type OwnerContext, type Seen, type TaskCalls } from "./owner-scope.js";
import { fail, isObject, skip, VERIFY_MARK, type Json, type Runner, type Schemas } from "./schemas.js";

export interface GrpcProbeOptions {
  /** The interface's url: `host:port` or a URL (grpc://, http:// and loopback hosts: plain HTTP/2; else TLS). */
  readonly target: string;
  /** The interface's tenant, put in every request that has the field. */
  readonly tenant?: string | undefined;
  readonly spec: GrpcBindingSpec;
  /** Metadata of every call: the protocol's (a2a-version) and credential A's. */
  readonly headers: Readonly<Record<string, string>>;
  /** The same with credential B's, when a second credential was given. */
  readonly headersB?: Readonly<Record<string, string>> | undefined;
  readonly schemas: Schemas;
  /** The deadline of each call, and of a stream (its own probe message: an agent that never ends fails). */
  readonly timeoutMs: number;
}

/** A version's gRPC binding from its bundled proto, as the generator derives it for an output. */
export function grpcSpecOf(ir: ProtocolIR): GrpcBindingSpec {
  const methods = Object.values(ir.profile.methods).filter((m): m is string => typeof m === "string");
  const descriptor = grpcDescriptor(irSourcePath(ir), methods, ir.specVersion);
  return { proto: descriptor.proto, service: descriptor.service, methods: descriptor.methods, errorCodes: ir.profile.errorCodes };
}

type Answer = { ok: true; result: unknown } | { ok: false; code: number; message: string; details: ErrorDetail[] };

const statusName = (code: number) => Object.entries(GRPC_STATUS).find(([, c]) => c === code)?.[0] ?? String(code);
const describe = (answer: Answer) => (answer.ok ? "OK and a result" : `${statusName(answer.code)} (${answer.message})`);

export class GrpcProbe {
  private readonly loaded: LoadedGrpcBinding;
  private readonly client: grpc.Client;
  private readonly started = new Set<string>();
  private readonly d = DIALECT_1_0;

  constructor(private readonly o: GrpcProbeOptions) {
    this.loaded = loadGrpcBinding(o.spec);
    const endpoint = grpcEndpoint(o.target);
    this.client = new grpc.Client(endpoint.address, endpoint.secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure());
  }

  close(): void {
    this.client.close();
  }

  private rpcOf(method: string) {
    const rpc = this.loaded.byMethod.get(method);
    if (rpc === undefined) throw new Error(`the 1.0.1 proto has no rpc ${method}`);
    return rpc;
  }

  private metadata(headers: Readonly<Record<string, string>>): grpc.Metadata {
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries(headers)) metadata.set(name.toLowerCase(), value);
    return metadata;
  }

  private params(method: string, params: Json): Json {
    const rpc = this.rpcOf(method);
    return this.o.tenant && rpc.requestType.fields["tenant"] !== undefined && params["tenant"] === undefined ? { ...params, tenant: this.o.tenant } : params;
  }

  private failure(error: grpc.ServiceError): Answer {
    let details: ErrorDetail[] = [];
    const raw = error.metadata?.get(STATUS_DETAILS_KEY)[0];
    if (raw instanceof Buffer) {
      try {
        details = decodeStatus(this.loaded.root, raw).details;
      } catch {
        // Unreadable details: the checks that need them say so.
      }
    }
    return { ok: false, code: error.code, message: error.details, details };
  }

  /** A unary call; answers its result (ProtoJSON) or its status. Fails when the answer cannot be decoded. */
  async unary(method: string, params: Json, headers: Readonly<Record<string, string>> = this.o.headers, raw?: Uint8Array): Promise<Answer> {
    const rpc = this.rpcOf(method);
    const request = raw ?? encodeParams(this.loaded, rpc, this.params(method, params));
    const outcome = await new Promise<{ error: grpc.ServiceError } | { bytes: Buffer }>((resolve) => {
      this.client.makeUnaryRequest<Uint8Array, Buffer>(rpc.path, (v) => Buffer.from(v), (b) => b, request, this.metadata(headers), { deadline: Date.now() + this.o.timeoutMs }, (error, response) =>
        resolve(error ? { error } : { bytes: response ?? Buffer.alloc(0) }),
      );
    });
    if ("error" in outcome) return this.failure(outcome.error);
    try {
      return { ok: true, result: decodeResult(this.loaded, rpc, outcome.bytes) };
    } catch (error) {
      return fail(`${method}: the response is not a valid ${rpc.responseType.name} (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  /** A server-streaming call: its messages (ProtoJSON) until it ends, and how it ended. */
  async stream(method: string, params: Json, headers: Readonly<Record<string, string>> = this.o.headers, max = Infinity): Promise<{ events: unknown[]; end: Answer }> {
    const rpc = this.rpcOf(method);
    const call = this.client.makeServerStreamRequest<Uint8Array, Buffer>(rpc.path, (v) => Buffer.from(v), (b) => b, encodeParams(this.loaded, rpc, this.params(method, params)), this.metadata(headers), {
      deadline: Date.now() + this.o.timeoutMs,
    });
    const events: unknown[] = [];
    try {
      for await (const bytes of call as AsyncIterable<Buffer>) {
        try {
          events.push(decodeResult(this.loaded, rpc, bytes));
        } catch (error) {
          fail(`message ${events.length + 1} is not a valid ${rpc.responseType.name} (${error instanceof Error ? error.message : String(error)})`);
        }
        if (events.length >= max) {
          call.cancel();
          return { events, end: { ok: true, result: undefined } };
        }
      }
      return { events, end: { ok: true, result: undefined } };
    } catch (error) {
      if (error instanceof Error && typeof (error as { code?: unknown }).code === "number" && "details" in error) return { events, end: this.failure(error as grpc.ServiceError) };
      throw error;
    }
  }

  private expectResult(call: "send" | "get" | "cancel" | "stream", answer: Answer): unknown {
    const method = this.d.methods[call];
    if (!answer.ok) return fail(`${method} answered ${describe(answer)}`);
    this.o.schemas.expect(this.d.responses[call], { jsonrpc: "2.0", id: 1, result: answer.result }, `the ${method} response`);
    return answer.result;
  }

  private expectStatus(answer: Answer, code: number, reason: string | undefined, what: string): void {
    if (answer.ok) fail(`${what} answered OK, not ${statusName(code)}`);
    else {
      if (answer.code !== code) fail(`${what} answered ${statusName(answer.code)} (${answer.message}), not ${statusName(code)}`);
      if (reason !== undefined) {
        const info = answer.details.find((d) => d["@type"].endsWith("google.rpc.ErrorInfo"));
        if (info === undefined) fail(`${what}: the status has no google.rpc.ErrorInfo detail (§10.6)`);
        else if (info["reason"] !== reason || info["domain"] !== A2A_ERROR_DOMAIN) fail(`${what}: ErrorInfo reason ${JSON.stringify(info["reason"])} domain ${JSON.stringify(info["domain"])}, not ${reason} / ${A2A_ERROR_DOMAIN}`);
      }
    }
  }

  private track(task: Json | undefined): void {
    if (task === undefined) return;
    const id = String(task["id"]);
    const state = this.d.stateOf(task);
    if (state !== undefined && this.d.terminal.has(state)) this.started.delete(id);
    else this.started.add(id);
  }

  async runAll(run: Runner, streaming: boolean, owner: Omit<OwnerContext, "twoCredentials" | "streaming">): Promise<void> {
    const d = this.d;
    let task: Json | undefined;
    const noTask = () => skip("SendMessage answered no task to work with");
    await run(CHECKS.grpcSend, async () => {
      task = d.taskOf(this.expectResult("send", await this.unary(d.methods.send, { message: d.message(), configuration: d.nonBlocking })));
      this.track(task);
    });
    await run(CHECKS.grpcGet, async () => {
      if (task === undefined) noTask();
      const id = String(task?.["id"]);
      const result = this.expectResult("get", await this.unary(d.methods.get, { id }));
      if (!isObject(result) || result["id"] !== id) fail(`GetTask answered another task (${JSON.stringify(isObject(result) ? result["id"] : result)})`);
      this.track(result as Json);
    });
    await run(CHECKS.grpcCancel, async () => {
      if (task === undefined) noTask();
      const id = String(task?.["id"]);
      const answer = await this.unary(d.methods.cancel, { id });
      this.started.delete(id);
      if (!answer.ok && answer.code === GRPC_STATUS.FAILED_PRECONDITION) return;
      const result = this.expectResult("cancel", answer);
      const state = isObject(result) ? d.stateOf(result) : undefined;
      if (state !== undefined && state !== d.canceled) fail(`CancelTask answered state ${JSON.stringify(state)}`);
    });
    await run(CHECKS.grpcStream, async () => {
      if (!streaming) skip("the card does not declare capabilities.streaming");
      const { events, end } = await this.stream(d.methods.stream, { message: d.message() });
      events.forEach((event, index) => {
        this.o.schemas.expect(d.responses.stream, { jsonrpc: "2.0", id: 1, result: event }, `stream message ${index + 1}`);
        this.track(d.taskOf(event));
      });
      if (!end.ok) fail(`the stream ended with ${describe(end)} after ${events.length} message(s)`);
      if (events.length === 0) fail("the stream ended without a message");
    });
    await run(CHECKS.grpcTaskNotFound, async () => this.expectStatus(await this.unary(d.methods.get, { id: `${VERIFY_MARK}-no-such-task` }), GRPC_STATUS.NOT_FOUND, "TASK_NOT_FOUND", "GetTask of an unknown id"));
    const unknown = `${VERIFY_MARK}-no-such-task`;
    const expectNotFound = (answer: Answer, what: string) => {
      if (answer.ok || answer.code !== GRPC_STATUS.NOT_FOUND) fail(`${what} answered ${describe(answer)}, not NOT_FOUND`);
    };
    await run(CHECKS.grpcCancelNotFound, async () => expectNotFound(await this.unary(d.methods.cancel, { id: unknown }), "CancelTask of an unknown id"));
    await run(CHECKS.grpcSubscribeNotFound, async () => {
      if (!streaming) skip("the card does not declare capabilities.streaming");
      const { events, end } = await this.stream(d.methods.subscribe, { id: unknown }, this.o.headers, 1);
      if (events.length > 0) fail("SubscribeToTask of an unknown id answered a stream of events, not NOT_FOUND");
      expectNotFound(end, "SubscribeToTask of an unknown id");
    });
    await run(CHECKS.grpcInvalidArgument, async () => {
      const answer = await this.unary(d.methods.send, {});
      // An agent that ran it anyway: whatever task it made is canceled at the end too.
      if (answer.ok) this.track(d.taskOf(answer.result));
      this.expectStatus(answer, GRPC_STATUS.INVALID_ARGUMENT, undefined, "SendMessage without a message");
    });
    await run(CHECKS.grpcVersion, async () =>
      this.expectStatus(await this.unary(d.methods.get, { id: `${VERIFY_MARK}-no-such-task` }, { ...this.o.headers, "a2a-version": "99.0" }), GRPC_STATUS.FAILED_PRECONDITION, "VERSION_NOT_SUPPORTED", "a2a-version: 99.0"),
    );
    await runOwnerChecks(run, CHECKS.grpcOwner, this.taskCalls(), { ...owner, twoCredentials: this.o.headersB !== undefined, streaming });
    for (const id of this.started) await this.unary(d.methods.cancel, { id }).catch(() => undefined);
    this.started.clear();
  }

  private taskCalls(): TaskCalls {
    const d = this.d;
    const b = this.o.headersB ?? this.o.headers;
    const seen = (answer: Answer): Seen => (!answer.ok && answer.code === GRPC_STATUS.NOT_FOUND ? { notFound: true } : { notFound: false, seen: describe(answer) });
    return {
      createTask: async () => {
        const task = d.taskOf(this.expectResult("send", await this.unary(d.methods.send, { message: d.message(), configuration: d.nonBlocking })));
        if (task === undefined || typeof task["id"] !== "string") return fail("SendMessage answered no task");
        return task["id"];
      },
      getAs: async (id) => seen(await this.unary(d.methods.get, { id }, b)),
      cancelAs: async (id) => seen(await this.unary(d.methods.cancel, { id }, b)),
      subscribeAs: async (id) => {
        const { events, end } = await this.stream(d.methods.subscribe, { id }, b, 1);
        return events.length > 0 ? { notFound: false, seen: "a stream of the task's events" } : seen(end);
      },
      isCanceled: async (id) => {
        const answer = await this.unary(d.methods.get, { id });
        return answer.ok && isObject(answer.result) && d.stateOf(answer.result) === d.canceled;
      },
      cancelQuietly: async (id) => void (await this.unary(d.methods.cancel, { id })),
    };
  }
}
