/**
 * The gRPC binding of one A2A version, as data: the version's proto (protobufjs JSON, emitted into the
 * generated output at generation time, so nothing reads a .proto at run time), the service's name, which
 * A2A method each rpc is, and the version's error table. {@link loadGrpcBinding} turns it into the
 * protobufjs types and the rpc table the server and the client transport work from.
 */
import protobuf from "protobufjs/light.js";
import { GOOGLE_RPC_DESCRIPTOR } from "./google-rpc.js";
import type { WireShapeAdapter } from "../wire/shapes.js";
import { messageFromJson, messageToJson, type ToJsonOptions } from "./proto-json.js";

export interface GrpcBindingSpec {
  /** The version's proto as protobufjs JSON (`Root.toJSON()`), with the google.protobuf types it uses. */
  readonly proto: object;
  /** The service's full name, e.g. "lf.a2a.v1.A2AService". */
  readonly service: string;
  /** rpc name → the A2A service's method name ("SendMessage" in 1.0.1; "message/send" in 0.3.0). */
  readonly methods: { readonly [rpc: string]: string };
  /** The version's errors: name without "Error" → JSON-RPC code (the profile's errorCodes). */
  readonly errorCodes: { readonly [name: string]: number };
  /**
   * Where the version's JSON-RPC shapes differ from the ProtoJSON of its proto (0.3.0): how a request of
   * the proto becomes the service's params and back, and how a result becomes the proto's response and
   * back. Absent when they are the same (1.0).
   */
  readonly shapes?: GrpcShapeAdapter;
}

/** Conversions between the proto's ProtoJSON and the service's JSON, per rpc (the same for every binding that carries the proto's shapes). */
export type GrpcShapeAdapter = WireShapeAdapter;

export interface GrpcRpc {
  /** The rpc's name, e.g. "SendMessage". */
  readonly name: string;
  /** The HTTP/2 path of the rpc, "/lf.a2a.v1.A2AService/SendMessage". */
  readonly path: string;
  /** The A2A method it is. */
  readonly method: string;
  readonly requestType: protobuf.Type;
  readonly responseType: protobuf.Type;
  /** A server-streaming rpc. */
  readonly streaming: boolean;
}

export interface LoadedGrpcBinding {
  readonly spec: GrpcBindingSpec;
  readonly root: protobuf.Root;
  /** By rpc name. */
  readonly rpcs: ReadonlyMap<string, GrpcRpc>;
  /** By A2A method name. */
  readonly byMethod: ReadonlyMap<string, GrpcRpc>;
}

const loaded = new WeakMap<GrpcBindingSpec, LoadedGrpcBinding>();

/** The binding's protobufjs types and rpc table (built once per spec). */
export function loadGrpcBinding(spec: GrpcBindingSpec): LoadedGrpcBinding {
  const cached = loaded.get(spec);
  if (cached) return cached;
  const root = protobuf.Root.fromJSON(spec.proto as protobuf.INamespace);
  const rpcNamespace = GOOGLE_RPC_DESCRIPTOR.nested?.["google"] as protobuf.INamespace;
  const extra: protobuf.INamespace = { nested: { ...(rpcNamespace.nested ?? {}) } };
  if (root.lookup(".google.protobuf.Any") !== null) delete extra.nested?.["protobuf"];
  root.addJSON({ google: extra });
  root.resolveAll();
  const service = root.lookup(spec.service);
  if (!(service instanceof protobuf.Service)) throw new Error(`the proto has no service ${spec.service}`);
  const rpcs = new Map<string, GrpcRpc>();
  const byMethod = new Map<string, GrpcRpc>();
  for (const rpc of service.methodsArray) {
    rpc.resolve();
    const method = spec.methods[rpc.name];
    if (method === undefined) continue; // an rpc the binding does not map is not served
    if (rpc.requestStream) continue; // A2A has no client-streaming rpcs
    const entry: GrpcRpc = {
      name: rpc.name,
      path: `/${service.fullName.replace(/^\./, "")}/${rpc.name}`,
      method,
      requestType: rpc.resolvedRequestType as protobuf.Type,
      responseType: rpc.resolvedResponseType as protobuf.Type,
      streaming: rpc.responseStream === true,
    };
    rpcs.set(rpc.name, entry);
    byMethod.set(method, entry);
  }
  const result = { spec, root, rpcs, byMethod };
  loaded.set(spec, result);
  return result;
}

/** Wire bytes of an rpc's request → the service's params. Throws ProtoJsonError (a bad field) or a decode Error. */
export function decodeParams(binding: LoadedGrpcBinding, rpc: GrpcRpc, bytes: Uint8Array): unknown {
  const json = messageToJson(rpc.requestType, rpc.requestType.decode(bytes));
  return binding.spec.shapes ? binding.spec.shapes.paramsFromWire(rpc.name, json) : json;
}

/** The service's params → the wire bytes of the rpc's request. Throws ProtoJsonError naming the bad field. */
export function encodeParams(binding: LoadedGrpcBinding, rpc: GrpcRpc, params: unknown): Uint8Array {
  const json = binding.spec.shapes ? binding.spec.shapes.paramsToWire(rpc.name, params) : params;
  return rpc.requestType.encode(messageFromJson(rpc.requestType, json ?? {})).finish();
}

/** A result (or a stream event) of the service → the wire bytes of the rpc's response (fields the proto does not declare are left out). */
export function encodeResult(binding: LoadedGrpcBinding, rpc: GrpcRpc, result: unknown): Uint8Array {
  const json = binding.spec.shapes ? binding.spec.shapes.resultToWire(rpc.name, result) : result;
  return rpc.responseType.encode(messageFromJson(rpc.responseType, json ?? {}, "", { ignoreUnknownFields: true })).finish();
}

/** Wire bytes of a response → the result in the service's JSON. */
export function decodeResult(binding: LoadedGrpcBinding, rpc: GrpcRpc, bytes: Uint8Array, options: ToJsonOptions = { unknownEnums: "number", requiredDefaults: true }): unknown {
  const json = messageToJson(rpc.responseType, rpc.responseType.decode(bytes), options);
  return binding.spec.shapes ? binding.spec.shapes.resultFromWire(rpc.name, json) : json;
}
