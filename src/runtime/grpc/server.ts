/**
 * The gRPC binding of the A2A server (specification-1.0.1.md §10): @grpc/grpc-js serves the version's
 * `A2AService`; each rpc decodes its protobuf request to the ProtoJSON params the transport-free A2A service
 * takes, calls the service, and encodes the result (or, for SendStreamingMessage and SubscribeToTask, each
 * event of the stream). Errors become gRPC statuses with google.rpc details (§10.6); metadata is the
 * service's headers (auth, `a2a-version`, §10.2). Bad input — bytes that are not the request message, an
 * enum number the proto does not name — is INVALID_ARGUMENT naming the field; a message larger than
 * `maxMessageBytes` is refused by grpc-js (RESOURCE_EXHAUSTED) before it is read.
 *
 * Only generated outputs that chose gRPC contain this file; it is the one place that imports grpc-js.
 */
import { observedStream, observedUnary, type StreamingHandler, type UnaryHandler } from "./observed-call.js";
import type { ServerTelemetry } from "../telemetry-hooks.js";
import grpc from "@grpc/grpc-js";
import { decodeParams, encodeResult, loadGrpcBinding, type GrpcBindingSpec, type GrpcRpc, type LoadedGrpcBinding } from "./binding.js";
import { encodeStatus, STATUS_DETAILS_KEY, typeUrl } from "./google-rpc.js";
import { ProtoJsonError } from "./proto-json.js";
import { repointIssues, repointText } from "../wire/issue-pointers.js";
import { GRPC_STATUS, isA2AErrorLike, statusOfError } from "./status.js";
import { A2AError } from "../a2a-error.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import type { CallRecorder } from "../call.js";

/** What a binding passes the service with each call (call.ts `CallContext`). */
export interface GrpcCallContext {
  /** The call's metadata, names lower-case (binary `-bin` entries left out; repeated entries joined by ", "). */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** Aborted when the client cancels the call or goes away. */
  readonly signal: AbortSignal;
  readonly binding: "GRPC";
  /** Set when the service requires no authentication (`requiresAuth === false`): nothing to check. */
  readonly authenticated?: { readonly principal: unknown };
  /** The call's span, when the server is observed (ServerOptions.telemetry). */
  readonly span?: CallRecorder;
}

/** The transport-free A2A service (service/service.ts `A2AService`), as far as this binding uses it. */
export interface A2AServiceLike {
  /** False when the card declares no security scheme: calls then skip authentication. */
  readonly requiresAuth?: boolean;
  call(method: string, params: unknown, ctx: GrpcCallContext): Promise<unknown>;
  stream(method: string, params: unknown, ctx: GrpcCallContext): Promise<AsyncIterable<unknown>>;
  /** The response metadata naming the extensions a call activated (`[key, value]`), when it activated some. */
  extensionsEcho?(headers: Readonly<Record<string, string | undefined>>): readonly [string, string] | undefined;
  /** Telemetry hooks: each call in a server span (ServerOptions.telemetry). */
  readonly telemetry?: ServerTelemetry | undefined;
  /** The service's task runtime: while it drains (the server core's `close({ graceMs })`), every call is refused with UNAVAILABLE. */
  readonly runtime?: { readonly draining: AbortSignal };
}

/**
 * What \`serveGrpc\` serves: the server core of \`createA2AServer\` (its \`service\`, the same one the HTTP
 * adapters serve), or a transport-free service of your own.
 */
export type GrpcServeTarget =
  | A2AServiceLike
  | {
      readonly service: A2AServiceLike & { readonly card?: object };
      /** A compat agent's second version (createA2AServer with compat). */
      readonly compatService?: A2AServiceLike | undefined;
      /** The server core's readiness (service/health.ts), which the health service follows. */
      readonly health?: ReadinessWatch;
    };

/** Tells whether the agent is ready (its store answers, it is not shutting down), now and at each change. */
export interface ReadinessWatch {
  watch(listener: (ready: boolean) => void): () => void;
}

/** The service of a target, and the agent card it serves when it has one. */
export function serviceOfTarget(target: GrpcServeTarget): { service: A2AServiceLike; card: object | undefined } {
  const service = "service" in target && typeof target.service === "object" && target.service !== null ? target.service : (target as A2AServiceLike);
  const card = (service as { card?: unknown }).card;
  return { service, card: typeof card === "object" && card !== null ? card : undefined };
}

/**
 * The gRPC interfaces an agent card lists (1.0 \`supportedInterfaces\` with protocolBinding "GRPC"; 0.3 \`url\`
 * with \`preferredTransport\` "GRPC" and \`additionalInterfaces\` with transport "GRPC"): their URLs.
 */
export function grpcInterfacesOfCard(card: object): string[] {
  const c = card as { [key: string]: unknown };
  const entries = (value: unknown) => (Array.isArray(value) ? value.filter((e): e is { [key: string]: unknown } => typeof e === "object" && e !== null) : []);
  const isGrpc = (name: unknown) => typeof name === "string" && name.toUpperCase() === "GRPC";
  const urls: string[] = [];
  for (const entry of entries(c["supportedInterfaces"])) if (isGrpc(entry["protocolBinding"]) && typeof entry["url"] === "string") urls.push(entry["url"]);
  if (isGrpc(c["preferredTransport"]) && typeof c["url"] === "string") urls.push(c["url"]);
  for (const entry of entries(c["additionalInterfaces"])) if (isGrpc(entry["transport"]) && typeof entry["url"] === "string") urls.push(entry["url"]);
  return urls;
}

/**
 * Checks at startup that the card the service serves lists the gRPC interface being started (clients pick
 * bindings from the card: an unlisted one is never used); throws an Error saying what to add.
 */
export function checkCardListsGrpc(card: object | undefined): void {
  if (card === undefined || grpcInterfacesOfCard(card).length > 0) return;
  const v1 = Array.isArray((card as { supportedInterfaces?: unknown }).supportedInterfaces);
  throw new Error(
    "serveGrpc: the agent card lists no GRPC interface, so no client would use this server: add " +
      (v1 ? '{ url: "host:port", protocolBinding: "GRPC" } to supportedInterfaces' : '{ url: "host:port", transport: "GRPC" } to additionalInterfaces') +
      ' (and pass transports: ["GRPC"] to createA2AServer)',
  );
}

export interface GrpcLogger {
  error(message: string, detail?: unknown): void;
}

export interface GrpcServiceOptions {
  /** Where internal errors are reported; default console.error. Statuses never carry their text. */
  logger?: GrpcLogger;
}

export interface GrpcServeOptions extends GrpcServiceOptions {
  /** Default 0 (a free port; the answer says which). */
  port?: number;
  /** Default "127.0.0.1"; "0.0.0.0" or "::" to listen on every interface. */
  host?: string;
  /** Default insecure (plain HTTP/2); the spec asks for TLS in production: `grpc.ServerCredentials.createSsl(...)`. */
  credentials?: grpc.ServerCredentials;
  /** The largest request message in bytes; default 1 MiB (the JSON-RPC body limit). Larger ones get RESOURCE_EXHAUSTED. */
  maxMessageBytes?: number;
  /** The largest response message in bytes; default unlimited (grpc-js's default). */
  maxSendMessageBytes?: number;
  /** More grpc-js server options (keepalive, ...). */
  serverOptions?: grpc.ServerOptions;
  /**
   * More A2A services on the same server, each with its binding: a compat agent serves 0.3's
   * `a2a.v1.A2AService` (its compat service) beside 1.0's `lf.a2a.v1.A2AService`; the packages differ.
   */
  services?: ReadonlyArray<{ readonly spec: GrpcBindingSpec; readonly service: A2AServiceLike }>;
  /**
   * Also serve gRPC server reflection (grpc.reflection.v1 and v1alpha), so that tools such as grpcurl can
   * list and call the service without the proto. Needs `@grpc/reflection` and `@grpc/proto-loader`
   * installed; default false.
   */
  reflection?: boolean;
  /**
   * Also serve the standard health check (grpc.health.v1.Health: Check and Watch) for "" and the A2A
   * service. Served for a server core, it follows the core's readiness (the HTTP `/readyz`): NOT_SERVING
   * while the store does not answer or once the core shuts down; for a bare service, SERVING. Either way
   * NOT_SERVING from `close()` on, before it drains. Needs `grpc-health-check` installed; default false.
   */
  health?: boolean;
}

export interface GrpcServerHandle {
  /** The port the server listens on. */
  readonly port: number;
  readonly server: grpc.Server;
  /** Stops accepting calls, waits for running ones up to `graceMs` (default 5 s), then cancels the rest. */
  close(graceMs?: number): Promise<void>;
}

/** The binding's grpc-js service definition and implementation, to add to a grpc.Server of your own. */
export function grpcService(spec: GrpcBindingSpec, target: GrpcServeTarget, options: GrpcServiceOptions = {}): {
  definition: grpc.ServiceDefinition;
  implementation: grpc.UntypedServiceImplementation;
} {
  const { service } = serviceOfTarget(target);
  const binding = loadGrpcBinding(spec);
  const logger = options.logger ?? { error: (message: string, detail?: unknown) => console.error(message, detail) };
  const definition: Record<string, grpc.MethodDefinition<Buffer, Uint8Array>> = {};
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const rpc of binding.rpcs.values()) {
    definition[rpc.name] = {
      path: rpc.path,
      requestStream: false,
      responseStream: rpc.streaming,
      // Bytes in and out: decoding happens in the handler, where a bad message becomes INVALID_ARGUMENT.
      requestSerialize: (value: Buffer) => value,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (value: Uint8Array) => Buffer.from(value.buffer, value.byteOffset, value.byteLength),
      responseDeserialize: (bytes: Buffer) => bytes,
      originalName: rpc.name,
    };
    const telemetry = service.telemetry;
    if (rpc.streaming) implementation[rpc.name] = telemetry ? observedStream(streamingHandler(binding, rpc, service, logger), telemetry) : streamingHandler(binding, rpc, service, logger);
    else implementation[rpc.name] = telemetry ? observedUnary(unaryHandler(binding, rpc, service, logger), telemetry) : unaryHandler(binding, rpc, service, logger);
  }
  return { definition, implementation };
}

/**
 * Serves the binding on its own port (grpc-js); resolves once it listens. Given a server core (or a
 * service with a card), the card must list a GRPC interface (see {@link checkCardListsGrpc}).
 */
export async function serveGrpc(spec: GrpcBindingSpec, target: GrpcServeTarget, options: GrpcServeOptions = {}): Promise<GrpcServerHandle> {
  const { service, card } = serviceOfTarget(target);
  checkCardListsGrpc(card);
  const server = new grpc.Server({
    "grpc.max_receive_message_length": options.maxMessageBytes ?? 1024 * 1024,
    "grpc.max_send_message_length": options.maxSendMessageBytes ?? -1,
    ...options.serverOptions,
  });
  // This version's service, then the others served beside it (a compat version's).
  const all = [{ spec, service }, ...(options.services ?? [])];
  for (const one of all) {
    const { definition, implementation } = grpcService(one.spec, one.service, options);
    server.addService(definition, implementation);
  }
  const specs = all.map((one) => one.spec);
  if (options.reflection) await addReflection(server, specs);
  const health = options.health ? await addHealth(server, specs) : undefined;
  const readiness = "health" in target && target.health !== undefined && typeof target.health === "object" ? target.health : undefined;
  const unwatch = health && readiness ? readiness.watch((ready) => health(ready ? "SERVING" : "NOT_SERVING")) : undefined;
  const host = options.host ?? "127.0.0.1";
  const address = host.includes(":") && !host.startsWith("[") ? `[${host}]:${options.port ?? 0}` : `${host}:${options.port ?? 0}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, options.credentials ?? grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return {
    port,
    server,
    close: (graceMs = 5_000) =>
      new Promise<void>((resolve) => {
        unwatch?.();
        health?.("NOT_SERVING");
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

type Logger = GrpcLogger;

/** What a call gets while the service's runtime drains: UNAVAILABLE (as the runtime's own refusal, tasks/drain.ts). */
function shuttingDownError(): A2AError {
  return new A2AError(JSON_RPC_ERROR.internalError, "This server is shutting down; retry the call (another instance takes it)", { retryAfterSeconds: 1 }, { http: 503, retryAfter: 1 });
}

interface HealthModule {
  HealthImplementation: new (statuses: { [service: string]: "SERVING" | "NOT_SERVING" | "UNKNOWN" }) => {
    addToServer(server: grpc.Server): void;
    setStatus(service: string, status: "SERVING" | "NOT_SERVING" | "UNKNOWN"): void;
  };
}

/** Loads an optional package by name (so that TypeScript does not need it installed), its CommonJS exports either way. */
async function optional<T>(name: string, why: string): Promise<T> {
  try {
    const module = (await import(name)) as T & { default?: T };
    return (module as { default?: T }).default ?? module;
  } catch (error) {
    throw new Error(`${why} needs ${name}: npm i ${name}`, { cause: error });
  }
}

/** Adds grpc-health-check's service, SERVING for the server ("") and each A2A service; returns the status setter. */
async function addHealth(server: grpc.Server, specs: readonly GrpcBindingSpec[]): Promise<(status: "SERVING" | "NOT_SERVING") => void> {
  const { HealthImplementation } = await optional<HealthModule>("grpc-health-check", "the gRPC health service");
  const names = ["", ...specs.map((s) => s.service)];
  const health = new HealthImplementation(Object.fromEntries(names.map((name) => [name, "SERVING" as const])));
  health.addToServer(server);
  return (status) => {
    for (const name of names) health.setStatus(name, status);
  };
}

interface ReflectionModule {
  ReflectionService: new (packageDefinition: unknown) => { addToServer(server: grpc.Server): void };
}
interface ProtoLoaderModule {
  fromJSON(json: object, options?: { keepCase?: boolean }): unknown;
}

/** Adds @grpc/reflection's service, describing the binding's proto (loaded by name: both packages are optional). */
async function addReflection(server: grpc.Server, specs: readonly GrpcBindingSpec[]): Promise<void> {
  const reflection = await optional<ReflectionModule>("@grpc/reflection", "gRPC reflection");
  const loader = await optional<ProtoLoaderModule>("@grpc/proto-loader", "gRPC reflection");
  // Each service's proto (a compat agent's two packages, a2a.v1 and lf.a2a.v1), in one package definition.
  const definition = Object.assign({}, ...specs.map((s) => loader.fromJSON(s.proto, { keepCase: true }) as object)) as object;
  new reflection.ReflectionService(definition).addToServer(server);
}

function unaryHandler(binding: LoadedGrpcBinding, rpc: GrpcRpc, service: A2AServiceLike, logger: Logger): UnaryHandler {
  return (call, callback, span) => {
    // The call's abort signal is made when something reads it (a verifier, a custom method): most calls
    // never do, and an AbortController plus a "cancelled" listener per call showed in the profile.
    let abort: AbortController | undefined;
    let answered = false;
    const signal = (): AbortSignal => {
      if (!abort) {
        const controller = new AbortController();
        abort = controller;
        if (call.cancelled) controller.abort();
        // grpc-js also emits "cancelled" once a call's status is sent: only a call still running is aborted.
        else call.once("cancelled", () => {
          if (!answered) controller.abort();
        });
      }
      return abort.signal;
    };
    const answer: grpc.sendUnaryData<Uint8Array> = (error, value) => {
      answered = true;
      callback(error, value);
    };
    // A server shutting down takes no new call: UNAVAILABLE, which clients retry (on another instance).
    if (service.runtime?.draining.aborted) return answer(serviceError(binding, rpc, shuttingDownError(), logger));
    let params: unknown;
    try {
      params = decodeParams(binding, rpc, call.request);
    } catch (error) {
      return answer(inputError(binding, rpc, error));
    }
    const context = contextOf(call.metadata, signal, service, span);
    service.call(rpc.method, params, context).then(
      (result) => {
        let bytes: Uint8Array;
        try {
          bytes = encodeResult(binding, rpc, result);
        } catch (error) {
          return answer(serviceError(binding, rpc, error, logger));
        }
        const echo = responseMetadata(service, context);
        if (echo) call.sendMetadata(echo);
        answer(null, bytes);
      },
      (error: unknown) => answer(serviceError(binding, rpc, error, logger)),
    );
  };
}

function streamingHandler(binding: LoadedGrpcBinding, rpc: GrpcRpc, service: A2AServiceLike, logger: Logger): StreamingHandler {
  return (call, span) => {
    const abort = new AbortController();
    let iterator: AsyncIterator<unknown> | undefined;
    // The wait in progress (the next event, or the drain of a full buffer) ends when the client goes away.
    // Not a race of each wait against one promise that lives as long as the call: every race adds a
    // reaction to that promise, kept until the call ends (memory that grows with each event of a long stream).
    let wakeUp: (() => void) | undefined;
    const leave = () => {
      abort.abort();
      wakeUp?.();
    };
    call.on("cancelled", leave);
    call.on("close", leave);
    /** Resolves with what `start` gives, or undefined as soon as the client is gone. */
    const untilGone = <T>(start: (resolve: (value: T) => void, reject: (error: unknown) => void) => void): Promise<T | undefined> =>
      new Promise<T | undefined>((resolve, reject) => {
        if (abort.signal.aborted) return resolve(undefined);
        wakeUp = () => resolve(undefined);
        start(resolve, reject);
      });
    void (async () => {
      if (service.runtime?.draining.aborted) {
        call.emit("error", serviceError(binding, rpc, shuttingDownError(), logger));
        return;
      }
      let params: unknown;
      try {
        params = decodeParams(binding, rpc, call.request);
      } catch (error) {
        call.emit("error", inputError(binding, rpc, error));
        return;
      }
      try {
        const context = contextOf(call.metadata, () => abort.signal, service, span);
        const events = await service.stream(rpc.method, params, context);
        iterator = events[Symbol.asyncIterator]();
        // The stream is accepted: the headers go now (a quiet subscription is not a silent call).
        if (!abort.signal.aborted) call.sendMetadata(responseMetadata(service, context) ?? new grpc.Metadata());
        while (!abort.signal.aborted) {
          const source = iterator;
          const next = await untilGone<IteratorResult<unknown>>((resolve, reject) => void source.next().then(resolve, reject));
          wakeUp = undefined;
          if (next === undefined || next.done) break;
          const bytes = encodeResult(binding, rpc, next.value);
          if (!call.write(bytes)) {
            await untilGone<void>((resolve) => call.once("drain", () => resolve()));
            wakeUp = undefined;
          }
        }
        if (!abort.signal.aborted) call.end();
      } catch (error) {
        if (!abort.signal.aborted) call.emit("error", serviceError(binding, rpc, error, logger));
      } finally {
        // Leaving the loop (the client went away, the stream ended or failed) releases the service's stream.
        abort.abort();
        void Promise.resolve(iterator?.return?.()).catch(() => {});
      }
    })();
  };
}

/**
 * The service's view of the call: its metadata as headers (one pass over grpc-js's entries), the abort signal
 * (made when read), and, when the service requires no authentication, the call marked as authenticated so
 * that the service does not build an HTTP request view to check nothing.
 */
/** The initial metadata of an answer: the activated extensions' echo (§3.2.6), or undefined when there is none. */
function responseMetadata(service: A2AServiceLike, context: GrpcCallContext): grpc.Metadata | undefined {
  const echo = service.extensionsEcho?.(context.headers);
  if (!echo) return undefined;
  const metadata = new grpc.Metadata();
  metadata.set(echo[0], echo[1]);
  return metadata;
}

function contextOf(metadata: grpc.Metadata, signal: () => AbortSignal, service: A2AServiceLike, span: CallRecorder | undefined): GrpcCallContext {
  const headers: Record<string, string> = {};
  const entries = metadata.toJSON();
  for (const key in entries) {
    if (key.endsWith("-bin")) continue;
    const values = entries[key] as grpc.MetadataValue[];
    let joined: string | undefined;
    for (const v of values) if (typeof v === "string") joined = joined === undefined ? v : `${joined}, ${v}`;
    if (joined !== undefined) headers[key.toLowerCase()] = joined;
  }
  return new GrpcCall(headers, signal, service.requiresAuth === false, span);
}

/** Where a GrpcCall keeps the function that gives its signal (a symbol: no member of a call context's). */
const CALL_SIGNAL = Symbol("a2a.grpcCallSignal");

/** The `signal` getter of every GrpcCall: one function, so that every call context shares one hidden class. */
function grpcCallSignal(this: { readonly [CALL_SIGNAL]: () => AbortSignal }): AbortSignal {
  return this[CALL_SIGNAL]();
}

/**
 * The call context of one rpc. Not an object literal with a `get signal()`: V8 gives each such literal a
 * hidden class of its own, in the old generation, which keeps the call's objects alive through
 * young-generation collections. The getter is one shared function, an own enumerable property (a copy
 * such as `{ ...ctx, headers }` keeps it).
 */
class GrpcCall implements GrpcCallContext {
  readonly headers: Record<string, string>;
  declare readonly signal: AbortSignal;
  readonly binding = "GRPC";
  /** Absent (not undefined) when the service requires authentication. */
  declare readonly authenticated?: { readonly principal: unknown };
  /** Absent (not undefined) when the server is not observed. */
  declare readonly span?: CallRecorder;
  readonly [CALL_SIGNAL]: () => AbortSignal;

  constructor(headers: Record<string, string>, signal: () => AbortSignal, open: boolean, span: CallRecorder | undefined) {
    this.headers = headers;
    Object.defineProperty(this, "signal", { get: grpcCallSignal, enumerable: true, configurable: true });
    this[CALL_SIGNAL] = signal;
    // A service that requires no authentication admits every caller (no principal).
    if (open) this.authenticated = { principal: undefined };
    if (span) this.span = span;
  }
}

/** A request that is not the rpc's message: INVALID_ARGUMENT with the field in a BadRequest. */
function inputError(binding: LoadedGrpcBinding, rpc: GrpcRpc, error: unknown): Partial<grpc.StatusObject> {
  const field = error instanceof ProtoJsonError ? error.field : "";
  const reason = error instanceof Error ? error.message : String(error);
  // protobufjs stops decoding at protoc's recursion limit (100 nested messages) without saying where.
  const description =
    error instanceof ProtoJsonError
      ? error.description
      : reason === "max depth exceeded"
        ? `not a valid ${rpc.requestType.name} message: nested deeper than 100 messages (protobuf's recursion limit)`
        : `not a valid ${rpc.requestType.name} message (${reason})`;
  const message = `Invalid ${rpc.requestType.name}: ${field ? `${field}: ` : ""}${description}`;
  return statusObject(binding, {
    code: GRPC_STATUS.INVALID_ARGUMENT,
    message,
    details: [{ "@type": typeUrl("BadRequest"), fieldViolations: [{ field, description }] }],
  });
}

/** An error of the service (or of encoding its answer) as the status the client gets. */
function serviceError(binding: LoadedGrpcBinding, rpc: GrpcRpc, error: unknown, logger: Logger): Partial<grpc.StatusObject> {
  if (isA2AErrorLike(error)) {
    // Fields named as the rpc's request has them ("message.contextId", 0.3.0's "message.content[0]"), not params.….
    const shapes = binding.spec.shapes;
    const toWire = shapes ? (pointer: string) => shapes.pointerToWire(rpc.name, pointer) : undefined;
    const data = repointIssues(error.data, toWire);
    const status = statusOfError({ code: error.code, message: repointText(error.message, toWire), ...(data !== undefined ? { data } : {}), ...(error.http !== undefined ? { http: error.http } : {}) }, binding.spec.errorCodes);
    const extra = new grpc.Metadata();
    if (error.challenge) extra.set("www-authenticate", error.challenge);
    return statusObject(binding, status, extra);
  }
  logger.error(`a2a: internal error in gRPC ${rpc.name}`, error);
  return statusObject(binding, { code: GRPC_STATUS.INTERNAL, message: "Internal error", details: [] });
}

function statusObject(
  binding: LoadedGrpcBinding,
  status: { code: number; message: string; details: Parameters<typeof encodeStatus>[1]["details"] },
  metadata: grpc.Metadata = new grpc.Metadata(),
): Partial<grpc.StatusObject> {
  if (status.details.length > 0) metadata.set(STATUS_DETAILS_KEY, Buffer.from(encodeStatus(binding.root, status)));
  return { code: status.code, details: status.message, metadata };
}
