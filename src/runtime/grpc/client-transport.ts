/**
 * The gRPC transport of the generated client (specification-1.0.1.md §10): the same calls as the JSON-RPC
 * transport — `call(method, params)` resolves to the result, `stream(method, params)` yields the events —
 * with the params and results in the version's JSON shapes, carried as protobuf over @grpc/grpc-js. Errors
 * are the client's A2A errors: an answer of the agent (a status with google.rpc details) becomes
 * `makeError(method, { code, message, data })` (by default an A2AError with the A2A code its
 * ErrorInfo names and the details as `data`); a failure to reach it an A2ATransportError.
 *
 * An optional import: only code that imports this file pulls grpc-js, so browser and edge users of the
 * client never do.
 */
import grpc from "@grpc/grpc-js";
import {
  receivedA2AError,
  checkedResult,
  A2ATransportError,
  type A2AErrorObject,
  type CallOptions,
  type ClientAuth,
  type ClientOptions,
  type ClientTransport,
  type ClientTransportFactory,
  type ResponseChecks,
  type TransportContext,
} from "../client/client.js";
import { decodeResult, encodeParams, loadGrpcBinding, type GrpcBindingSpec, type GrpcRpc, type LoadedGrpcBinding } from "./binding.js";
import { decodeStatus, STATUS_DETAILS_KEY, type ErrorDetail } from "./google-rpc.js";
import { ProtoJsonError } from "./proto-json.js";
import { codeOfStatus, GRPC_STATUS } from "./status.js";

export interface GrpcClientOptions {
  /** Metadata sent with every call (e.g. the version's `a2a-version`); a function is called for every call. */
  headers?: Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);
  /** Credentials sent as metadata: `authorization: Bearer …`, or the API key's name (an API key "in query" is sent as metadata too). */
  auth?: ClientAuth;
  /**
   * Milliseconds a unary call may take (its deadline), and a stream may wait for the answer's headers;
   * default 60 000; 0 = none. Once a stream's headers are in, only its signal bounds it.
   */
  timeoutMs?: number;
  /**
   * Channel credentials; default TLS, except for `grpc://` / `http://` targets and loopback hosts
   * (localhost, 127.0.0.1, ::1), which get plain HTTP/2.
   */
  credentials?: grpc.ChannelCredentials;
  /** The largest response message accepted, in bytes; default 4 MiB. */
  maxMessageBytes?: number;
  /** Whether to check every result with `checks.validate`; default false. */
  validateResponses?: boolean;
  /** More grpc-js channel options. */
  channelOptions?: grpc.ChannelOptions;
  /**
   * The card interface's `tenant` (1.0, §4.4.6): put in the `tenant` field of every request message that
   * has one, unless the params set it.
   */
  tenant?: string;
}

/** The endpoint a target names: `host:port`, or a URL (`https://agent.example.com/a2a` → agent.example.com:443, TLS). */
export function grpcEndpoint(target: string): { address: string; secure: boolean } {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const host = target.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    return { address: target, secure: !LOOPBACK.has(host.toLowerCase()) };
  }
  const url = new URL(target);
  const scheme = url.protocol.replace(/:$/, "").toLowerCase();
  const secure = scheme === "https" || scheme === "grpcs";
  const port = url.port || (secure ? "443" : "80");
  return { address: `${url.hostname.includes(":") && !url.hostname.startsWith("[") ? `[${url.hostname}]` : url.hostname}:${port}`, secure };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1"]);

/**
 * The gRPC endpoint an agent card declares, or undefined: 1.0's first `supportedInterfaces` entry with
 * `protocolBinding: "GRPC"` (§8.3), 0.3's `url` when `preferredTransport` is "GRPC", else its first
 * `additionalInterfaces` entry with `transport: "GRPC"`.
 */
export function grpcInterfaceOf(card: unknown): { url: string; tenant?: string } | undefined {
  if (typeof card !== "object" || card === null) return undefined;
  const c = card as { supportedInterfaces?: unknown; preferredTransport?: unknown; url?: unknown; additionalInterfaces?: unknown };
  const entries = (value: unknown) => (Array.isArray(value) ? value.filter((e): e is { [key: string]: unknown } => typeof e === "object" && e !== null) : []);
  const v1 = entries(c.supportedInterfaces).find((i) => i["protocolBinding"] === "GRPC" && typeof i["url"] === "string");
  if (v1) return typeof v1["tenant"] === "string" && v1["tenant"] !== "" ? { url: v1["url"] as string, tenant: v1["tenant"] } : { url: v1["url"] as string };
  if (c.preferredTransport === "GRPC" && typeof c.url === "string") return { url: c.url };
  const v03 = entries(c.additionalInterfaces).find((i) => i["transport"] === "GRPC" && typeof i["url"] === "string");
  return v03 ? { url: v03["url"] as string } : undefined;
}

/** A2A over gRPC for one agent endpoint. `close()` it when done (it holds an HTTP/2 connection). */
export class GrpcTransport implements ClientTransport {
  readonly binding = "GRPC" as const;
  /** The target the transport was made for (a URL or \`host:port\`). */
  readonly endpoint: string;
  /** The \`host:port\` the channel connects to. */
  readonly address: string;
  private readonly loaded: LoadedGrpcBinding;
  private readonly client: grpc.Client;
  private readonly options: GrpcClientOptions;
  private readonly checks: ResponseChecks;

  constructor(spec: GrpcBindingSpec, target: string, options: GrpcClientOptions = {}, checks: ResponseChecks = {}) {
    this.loaded = loadGrpcBinding(spec);
    const endpoint = grpcEndpoint(target);
    this.endpoint = target;
    this.address = endpoint.address;
    this.options = options;
    this.checks = checks;
    const credentials = options.credentials ?? (endpoint.secure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure());
    this.client = new grpc.Client(endpoint.address, credentials, {
      "grpc.max_receive_message_length": options.maxMessageBytes ?? 4 * 1024 * 1024,
      ...options.channelOptions,
    });
  }

  /** The A2A methods this transport can call (those the proto has an rpc for). */
  get methods(): string[] {
    return [...this.loaded.byMethod.keys()];
  }

  /**
   * Calls a unary rpc and resolves to its result in the version's JSON. Throws `makeError` for an error
   * status the agent answered, an A2ATransportError when it could not be reached (or timed out), a
   * ProtoJsonError when `params` do not fit the request message (nothing is sent).
   */
  async call(method: string, params: unknown, options: CallOptions = {}): Promise<unknown> {
    const rpc = this.rpcOf(method, false);
    const request = encodeParams(this.loaded, rpc, this.withTenant(rpc, params));
    const metadata = await this.metadata(options);
    const timeout = options.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    const callOptions: grpc.CallOptions = timeout > 0 ? { deadline: Date.now() + timeout } : {};
    options.signal?.throwIfAborted();
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const call = this.client.makeUnaryRequest<Uint8Array, Buffer>(rpc.path, toBuffer, (b) => b, request, metadata, callOptions, (error, response) => {
        options.signal?.removeEventListener("abort", onAbort);
        if (error) reject(options.signal?.aborted ? options.signal.reason : this.failure(method, error, timeout));
        else resolve(response ?? Buffer.alloc(0));
      });
      const onAbort = () => call.cancel();
      options.signal?.addEventListener("abort", onAbort, { once: true });
    });
    return this.result(method, rpc, bytes);
  }

  /**
   * Calls a server-streaming rpc and yields each event in the version's JSON. Leaving the loop early or
   * aborting the signal cancels the call, so the server releases the stream; `timeoutMs` bounds the wait
   * for the answer's headers. Errors as for {@link call}.
   */
  async *stream(method: string, params: unknown, options: CallOptions = {}): AsyncGenerator<unknown, void, undefined> {
    const rpc = this.rpcOf(method, true);
    const request = encodeParams(this.loaded, rpc, this.withTenant(rpc, params));
    const metadata = await this.metadata(options);
    options.signal?.throwIfAborted();
    const call = this.client.makeServerStreamRequest<Uint8Array, Buffer>(rpc.path, toBuffer, (b) => b, request, metadata, {});
    const onAbort = () => call.cancel();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // Like the JSON-RPC transport, the timeout bounds the wait for the answer's headers; after them only
    // the signal bounds the stream.
    const timeout = options.timeoutMs ?? this.options.timeoutMs ?? 60_000;
    let timedOut = false;
    const timer =
      timeout > 0
        ? setTimeout(() => {
            timedOut = true;
            call.cancel();
          }, timeout)
        : undefined;
    call.once("metadata", () => clearTimeout(timer));
    let finished = false;
    try {
      for await (const bytes of call as AsyncIterable<Buffer>) {
        const result = this.result(method, rpc, bytes);
        yield result;
        if (this.checks.isFinal?.(result)) return;
      }
      finished = true;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timedOut) throw new A2ATransportError(`${method}: timed out after ${timeout} ms`, { cause: error });
      throw isServiceError(error) ? this.failure(method, error, 0) : error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (!finished) call.cancel();
    }
  }

  /** Closes the channel. */
  close(): void {
    this.client.close();
  }

  private withTenant(rpc: GrpcRpc, params: unknown): unknown {
    const tenant = this.options.tenant;
    if (!tenant || rpc.requestType.fields["tenant"] === undefined) return params;
    const object = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as { [key: string]: unknown }) : {};
    return object["tenant"] === undefined ? { ...object, tenant } : params;
  }

  private rpcOf(method: string, streaming: boolean): GrpcRpc {
    const rpc = this.loaded.byMethod.get(method);
    if (!rpc) throw new A2ATransportError(`${method}: the gRPC binding has no rpc for this method`);
    if (rpc.streaming !== streaming) throw new A2ATransportError(`${method}: ${rpc.streaming ? "a streaming rpc: use stream()" : "a unary rpc: use call()"}`);
    return rpc;
  }

  private result(method: string, rpc: GrpcRpc, bytes: Buffer): unknown {
    let result: unknown;
    try {
      result = decodeResult(this.loaded, rpc, bytes);
    } catch (error) {
      const what = error instanceof ProtoJsonError ? error.message : error instanceof Error ? error.message : String(error);
      throw new A2ATransportError(`${method}: the response is not a valid ${rpc.responseType.name} (${what})`, { cause: error });
    }
    return checkedResult(this.checks, this.options, method, result);
  }

  private async metadata(options: CallOptions): Promise<grpc.Metadata> {
    const metadata = new grpc.Metadata();
    const put = (name: string, value: string) => {
      try {
        metadata.set(name.toLowerCase(), value);
      } catch (error) {
        // grpc-js refuses keys outside [0-9a-z_.-] and values that are not printable ASCII.
        throw new A2ATransportError(`header ${JSON.stringify(name)} cannot be sent as gRPC metadata (${error instanceof Error ? error.message : String(error)})`, { cause: error });
      }
    };
    const auth = this.options.auth;
    if (auth?.type === "bearer") put("authorization", `Bearer ${typeof auth.token === "function" ? await auth.token() : auth.token}`);
    else if (auth?.type === "apiKey") put(auth.name, auth.value);
    const headers = typeof this.options.headers === "function" ? await this.options.headers() : this.options.headers;
    for (const [name, value] of Object.entries(headers ?? {})) put(name, value);
    for (const [name, value] of Object.entries(options.headers ?? {})) put(name, value);
    return metadata;
  }

  /** The error a failed call throws: the agent's A2A error, or a transport error. */
  private failure(method: string, error: grpc.ServiceError, timeout: number): Error {
    let details: ErrorDetail[] = [];
    const raw = error.metadata?.get(STATUS_DETAILS_KEY)[0];
    if (raw instanceof Buffer) {
      try {
        details = decodeStatus(this.loaded.root, raw).details;
      } catch {
        // Unreadable details: the status alone decides.
      }
    }
    const code = codeOfStatus(error.code, details, this.loaded.spec.errorCodes);
    if (code === undefined) {
      const what = error.code === GRPC_STATUS.DEADLINE_EXCEEDED && timeout > 0 ? `timed out after ${timeout} ms` : `gRPC ${statusName(error.code)}: ${error.details}`;
      return new A2ATransportError(`${method}: ${what}`, { cause: error });
    }
    const object: A2AErrorObject = { code, message: error.details };
    if (details.length > 0) object.data = details;
    return this.checks.makeError ? this.checks.makeError(method, object) : receivedA2AError(method, object);
  }
}

/**
 * The client's factory of the gRPC binding for one version (the generated \`grpc-client.ts\` exports it as
 * \`grpcTransport\`): the client's options become the channel's — credentials and headers as metadata
 * (with the protocol's headers, e.g. \`a2a-version\`), the timeout as deadline, \`maxResponseBytes\` as the
 * largest message, the interface's tenant in every request message. \`grpc\` adds grpc-js options.
 */
export function grpcTransportFactory(spec: GrpcBindingSpec, grpcOptions: Pick<GrpcClientOptions, "credentials" | "channelOptions"> = {}): ClientTransportFactory {
  return {
    binding: "GRPC",
    create(endpoint: string, options: ClientOptions, checks: ResponseChecks, context: TransportContext): GrpcTransport {
      const userHeaders = options.headers;
      const protocol = context.protocolHeaders;
      const headers =
        typeof userHeaders === "function" ? async () => ({ ...protocol, ...(await userHeaders()) }) : { ...protocol, ...(userHeaders ?? {}) };
      const transportOptions: GrpcClientOptions = { headers, ...grpcOptions };
      if (options.auth !== undefined) transportOptions.auth = options.auth;
      if (options.timeoutMs !== undefined) transportOptions.timeoutMs = options.timeoutMs;
      if (options.maxResponseBytes !== undefined) transportOptions.maxMessageBytes = options.maxResponseBytes;
      if (options.validateResponses !== undefined) transportOptions.validateResponses = options.validateResponses;
      if (context.tenant !== undefined) transportOptions.tenant = context.tenant;
      return new GrpcTransport(spec, endpoint, transportOptions, checks);
    },
  };
}

function toBuffer(value: Uint8Array): Buffer {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

function isServiceError(error: unknown): error is grpc.ServiceError {
  return error instanceof Error && typeof (error as { code?: unknown }).code === "number" && "details" in error;
}

function statusName(code: number): string {
  return Object.entries(GRPC_STATUS).find(([, c]) => c === code)?.[0] ?? String(code);
}
