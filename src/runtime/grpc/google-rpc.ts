/**
 * The google.rpc error model the gRPC binding answers errors in (specification-1.0.1.md §10.6): a
 * `google.rpc.Status` (code, message, details as `google.protobuf.Any`) sent in the `grpc-status-details-bin`
 * trailer, with `google.rpc.ErrorInfo` and `google.rpc.BadRequest` details. The JSON-RPC binding carries
 * the same details as ProtoJSON (`{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", ... }`); this
 * converts between the two forms.
 *
 * The declarations are those of googleapis' google/rpc/status.proto and error_details.proto (same field
 * numbers), reduced to the messages the binding uses.
 */
import protobuf from "protobufjs/light.js";
import { messageFromJson, messageToJson } from "./proto-json.js";

/** The trailer a google.rpc.Status travels in. */
export const STATUS_DETAILS_KEY = "grpc-status-details-bin";

const TYPE_URL_PREFIX = "type.googleapis.com/";

/** protobufjs JSON of google.rpc.Status, ErrorInfo, BadRequest (and google.protobuf.Any they need). */
export const GOOGLE_RPC_DESCRIPTOR: protobuf.INamespace = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: "string", id: 1 }, value: { type: "bytes", id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: "int32", id: 1 },
                message: { type: "string", id: 2 },
                details: { rule: "repeated", type: "google.protobuf.Any", id: 3 },
              },
            },
            ErrorInfo: {
              fields: {
                reason: { type: "string", id: 1 },
                domain: { type: "string", id: 2 },
                metadata: { keyType: "string", type: "string", id: 3 } as protobuf.IMapField,
              },
            },
            BadRequest: {
              fields: { field_violations: { rule: "repeated", type: "FieldViolation", id: 1 } },
              nested: {
                FieldViolation: {
                  fields: {
                    field: { type: "string", id: 1 },
                    description: { type: "string", id: 2 },
                    reason: { type: "string", id: 3 },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** A detail in its ProtoJSON form: `{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, ... }`. */
export type ErrorDetail = { "@type": string; [field: string]: unknown };

export interface RpcStatus {
  code: number;
  message: string;
  details: ErrorDetail[];
}

export function isErrorDetail(value: unknown): value is ErrorDetail {
  return typeof value === "object" && value !== null && !Array.isArray(value) && typeof (value as { "@type"?: unknown })["@type"] === "string";
}

/** The google.rpc.Status bytes of `status`. Details of a type the root does not declare are left out. */
export function encodeStatus(root: protobuf.Root, status: RpcStatus): Uint8Array {
  const Status = root.lookupType("google.rpc.Status");
  const details: Array<{ type_url: string; value: Uint8Array }> = [];
  for (const detail of status.details) {
    const typeName = detail["@type"].slice(detail["@type"].lastIndexOf("/") + 1);
    const type = root.lookup(typeName);
    if (!(type instanceof protobuf.Type)) continue;
    const { "@type": typeUrl, ...fields } = detail;
    try {
      details.push({ type_url: typeUrl, value: type.encode(messageFromJson(type, fields)).finish() });
    } catch {
      // A detail that does not fit its declared type is left out rather than failing the error itself.
    }
  }
  return Status.encode({ code: status.code, message: status.message, details }).finish();
}

/** The status in `bytes` with its details in ProtoJSON form (an undeclared type keeps its bytes as base64 `value`). */
export function decodeStatus(root: protobuf.Root, bytes: Uint8Array): RpcStatus {
  const Status = root.lookupType("google.rpc.Status");
  const decoded = Status.decode(bytes) as unknown as { code?: number; message?: string; details?: Array<{ type_url?: string; value?: Uint8Array }> };
  const details: ErrorDetail[] = [];
  for (const any of decoded.details ?? []) {
    const typeUrl = any.type_url ?? "";
    const type = root.lookup(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
    const value = any.value ?? new Uint8Array();
    if (type instanceof protobuf.Type && typeUrl.startsWith(TYPE_URL_PREFIX)) {
      try {
        details.push({ "@type": typeUrl, ...(messageToJson(type, type.decode(value), { unknownEnums: "number" }) as object) });
        continue;
      } catch {
        // falls through: kept as bytes
      }
    }
    details.push({ "@type": typeUrl, value: Buffer.from(value).toString("base64") });
  }
  return { code: decoded.code ?? 0, message: decoded.message ?? "", details };
}

/** `type.googleapis.com/google.rpc.<name>`. */
export function typeUrl(name: "ErrorInfo" | "BadRequest"): string {
  return `${TYPE_URL_PREFIX}google.rpc.${name}`;
}
