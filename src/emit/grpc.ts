import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type protobuf from "protobufjs";
import { protobufjs } from "../proto/protobufjs.js";
import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { BUNDLED_SCHEMA_DIR } from "../schema/paths.js";
import type { TemplateRenderer } from "./templates.js";

/**
 * The gRPC binding in a generated output, only when the user chose it (`--transports …,grpc`): besides the
 * runtime files of `src/runtime/grpc/` (the gRPC bundle of emit/runtime-bundles.ts), the version's proto as protobufjs JSON
 * (`grpc.ts`, so nothing reads a .proto at run time), `server/grpc.ts` (serveGrpc for this version) and
 * `grpc-client.ts` (the client transport). The default output has none of them and needs no grpc-js.
 */

/** Where the minimal google/api declarations the A2A protos import are kept. */
const PROTO_INCLUDE_DIR = join(BUNDLED_SCHEMA_DIR, "proto");

/**
 * 0.3.0's rpcs and the JSON-RPC methods they are (specification-0.3.0.md §3.5.6 "Method Mapping Reference").
 * From 1.0 on an rpc and its JSON-RPC method have the same name.
 */
const RPC_METHODS_BY_VERSION: { [version: string]: { [rpc: string]: string } } = {
  "0.3.0": {
    SendMessage: "message/send",
    SendStreamingMessage: "message/stream",
    GetTask: "tasks/get",
    CancelTask: "tasks/cancel",
    TaskSubscription: "tasks/resubscribe",
    CreateTaskPushNotificationConfig: "tasks/pushNotificationConfig/set",
    GetTaskPushNotificationConfig: "tasks/pushNotificationConfig/get",
    ListTaskPushNotificationConfig: "tasks/pushNotificationConfig/list",
    DeleteTaskPushNotificationConfig: "tasks/pushNotificationConfig/delete",
    GetAgentCard: "agent/getAuthenticatedExtendedCard",
  },
};

/**
 * Versions whose proto shapes differ from their JSON-RPC shapes: the runtime module that maps them (see
 * src/runtime/wire/shapes-0.3.0.ts, shared by the gRPC and HTTP+JSON bindings). From 1.0 on the JSON-RPC
 * params and results are the proto's ProtoJSON.
 */
export const SHAPES_BY_VERSION: { readonly [version: string]: { readonly module: string; readonly name: string } } = {
  "0.3.0": { module: "wire/shapes-0.3.0", name: "SHAPES_0_3_0" },
};

/**
 * The file an IR was built from, as a path that exists from here: \`ir.source.file\` is the path as the user
 * wrote it (relative to the cwd of the run) or, for a bundled version, relative to the package
 * (\`schema/a2a-1.0.1.proto\`), which only resolves when the package is the cwd: then the bundled file.
 */
export function irSourcePath(ir: Pick<ProtocolIR, "source">): string {
  const file = ir.source.file;
  if (existsSync(file)) return file;
  const bundled = join(BUNDLED_SCHEMA_DIR, ir.source.fileName);
  return file.replace(/\\/g, "/").endsWith(`schema/${ir.source.fileName}`) && existsSync(bundled) ? bundled : file;
}

/** The .proto of a schema file: itself, or the proto bundled beside a JSON Schema (a2a-0.3.0.proto). */
export function protoPathOf(schemaPath: string): string | undefined {
  if (/\.proto$/i.test(schemaPath)) return schemaPath;
  const beside = schemaPath.replace(/\.json$/i, ".proto");
  return existsSync(beside) ? beside : undefined;
}

export interface GrpcDescriptor {
  /** protobufjs JSON of the proto (messages, enums, the service), the google.api declarations left out. */
  proto: Record<string, unknown>;
  /** The service's full name. */
  service: string;
  /** rpc → A2A method. */
  methods: Record<string, string>;
}

/** Reads a proto and its imports (google/protobuf from protobufjs, google/api from schema/proto); its A2A service. */
function loadService(protoPath: string): { root: protobuf.Root; service: protobuf.Service } {
  const root = new (protobufjs().Root)();
  root.resolvePath = (origin, target) => {
    const near = origin ? resolve(dirname(origin), target) : resolve(target);
    if (existsSync(near)) return near;
    const bundled = join(PROTO_INCLUDE_DIR, target);
    return existsSync(bundled) ? bundled : near;
  };
  try {
    root.loadSync(protoPath, { keepCase: true, alternateCommentMode: false });
    root.resolveAll();
  } catch (error) {
    throw new CodegenError(`cannot read the proto for the gRPC binding: ${error instanceof Error ? error.message : String(error)}`, { file: protoPath, cause: error });
  }
  const services: protobuf.Service[] = [];
  const walk = (ns: protobuf.NamespaceBase): void => {
    for (const child of ns.nestedArray) {
      if (child instanceof protobufjs().Service) services.push(child);
      else if (child instanceof protobufjs().Namespace) walk(child);
    }
  };
  walk(root);
  const service = services.find((s) => !s.fullName.startsWith(".google."));
  if (!service) throw new CodegenError("the proto declares no service: no gRPC binding to generate", { file: protoPath });
  return { root, service };
}

/** The A2A method an rpc of `version` is: 0.3.0's table, else (1.0 on) the rpc's own name. */
export function methodOfRpc(version: string, rpc: string): string {
  return RPC_METHODS_BY_VERSION[version]?.[rpc] ?? rpc;
}

/** The binding's data for a generated output: the proto as protobufjs JSON, the service, rpc → A2A method. */
export function grpcDescriptor(protoPath: string, methodNames: readonly string[], version: string): GrpcDescriptor {
  const { root, service } = loadService(protoPath);
  const known = new Set(methodNames);
  const methods: Record<string, string> = {};
  for (const rpc of service.methodsArray) {
    const method = methodOfRpc(version, rpc.name);
    if (known.has(method)) methods[rpc.name] = method;
  }
  const json = root.toJSON({ keepComments: false }) as { nested?: Record<string, { nested?: Record<string, unknown> }> };
  delete json.nested?.google?.nested?.api;
  return { proto: json as Record<string, unknown>, service: service.fullName.replace(/^\./, ""), methods };
}

/** One rpc of a version's gRPC binding, for reports such as `a2a-codegen diff`. */
export interface GrpcRpcFact {
  /** The gRPC method name, e.g. "SubscribeToTask". */
  rpc: string;
  /** The A2A (JSON-RPC) method it is, e.g. "tasks/resubscribe" in 0.3.0. */
  method: string;
  /** The full path, "/lf.a2a.v1.A2AService/SubscribeToTask". */
  path: string;
  requestType: string;
  responseType: string;
  streaming: boolean;
}

/** The rpcs of the gRPC binding defined by `protoPath` for `version`, in the proto's order. */
export function grpcRpcs(protoPath: string, version: string): GrpcRpcFact[] {
  const { service } = loadService(protoPath);
  const name = service.fullName.replace(/^\./, "");
  return service.methodsArray.map((rpc) => ({
    rpc: rpc.name,
    method: methodOfRpc(version, rpc.name),
    path: `/${name}/${rpc.name}`,
    requestType: rpc.resolvedRequestType?.fullName.replace(/^\./, "") ?? rpc.requestType,
    responseType: rpc.resolvedResponseType?.fullName.replace(/^\./, "") ?? rpc.responseType,
    streaming: rpc.responseStream === true,
  }));
}

/** The files of the gRPC binding for `ir`'s version (paths relative to the output folder): the binding and the server entry. */
export function emitGrpc(
  ir: ProtocolIR,
  schemaPath: string,
  templates: TemplateRenderer,
  header: string,
  /** The folder of a compat version whose gRPC binding is generated too (compat/a2a-0.3.0): serveGrpc serves its service beside this one. */
  compatFolder?: string,
): Record<string, string> {
  const files: Record<string, string> = {};
  Object.assign(files, emitGrpcBinding(ir, schemaPath, templates, header));
  files["server/grpc.ts"] = templates.render("grpc/server.ts.hbs", { header, compatFolder: compatFolder ?? "" });
  return files;
}

/**
 * The version's binding (grpc.ts: the proto, its service, the method of each rpc, the error codes) and the
 * client's transport (grpc-client.ts); a compat version's folder has these two, over the primary's runtime.
 * `extraErrors`: errors of another version the service raises too (a compat service, the primary's
 * VersionNotSupported), by the profile's name, so that their gRPC status is theirs, not UNKNOWN.
 */
export function emitGrpcBinding(
  ir: ProtocolIR,
  schemaPath: string,
  templates: TemplateRenderer,
  header: string,
  extraErrors?: { readonly version: string; readonly codes: Readonly<Record<string, number>> },
): Record<string, string> {
  const protoPath = protoPathOf(schemaPath);
  if (protoPath === undefined) {
    throw new CodegenError(`the gRPC binding needs the version's proto; A2A ${ir.specVersion} has none (gRPC is defined from 0.3.0 on)`, { kind: "usage" });
  }
  const descriptor = grpcDescriptor(protoPath, Object.keys(ir.profile.methods).length > 0 ? methodNamesOf(ir) : [], ir.specVersion);
  const shapes = SHAPES_BY_VERSION[ir.specVersion];
  const extra = Object.entries(extraErrors?.codes ?? {});
  const errorCodes =
    extra.length === 0
      ? "A2A_PROFILE.errorCodes"
      : `{ ...A2A_PROFILE.errorCodes, ${extra.map(([name, code]) => `${name}: ${code}`).join(", ")} }`;
  const files: Record<string, string> = {};
  files["grpc.ts"] = templates.render("grpc/binding.ts.hbs", {
    header,
    specVersion: ir.specVersion,
    shapes: shapes ?? false,
    service: descriptor.service,
    methods: descriptor.methods,
    extraErrorsVersion: extra.length > 0 ? (extraErrors?.version ?? "") : "",
    errorCodes,
    proto: descriptor.proto,
  });
  files["grpc-client.ts"] = templates.render("grpc/client.ts.hbs", { header });
  return files;
}

function methodNamesOf(ir: ProtocolIR): string[] {
  return Object.values(ir.profile.methods).filter((m): m is string => typeof m === "string");
}
