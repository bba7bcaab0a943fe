/**
 * Where a version's proto shapes (the ProtoJSON of its proto, which its gRPC and HTTP+JSON bindings speak)
 * differ from the JSON-RPC shapes its service speaks (A2A 0.3.0: `wire/shapes-0.3.0.ts`), a translation
 * between the two, per rpc and both ways, shared by every binding that carries the proto's shapes. From
 * 1.0 on the JSON-RPC params and results are the proto's ProtoJSON and no translation is needed.
 */

/** Conversions between the proto's ProtoJSON (`wire`) and the service's JSON (`service`), per rpc. */
export interface WireShapeAdapter {
  paramsFromWire(rpc: string, wire: unknown): unknown;
  paramsToWire(rpc: string, params: unknown): unknown;
  resultToWire(rpc: string, result: unknown): unknown;
  resultFromWire(rpc: string, wire: unknown): unknown;
  /**
   * A JSON pointer into the service's params ("/message/parts/0/text") as the pointer into the rpc's wire
   * request that carries the same field ("/message/content/0/text"), so that an error names the field as
   * the caller sent it.
   */
  pointerToWire(rpc: string, pointer: string): string;
}

/** A request field that is not what the proto (or the shape translation) expects: the field's path and what is wrong. */
export class ProtoJsonError extends Error {
  override readonly name = "ProtoJsonError";
  /** The field's path, e.g. `message.parts[0].raw`; "" for the whole value. */
  readonly field: string;
  /** What is wrong, e.g. `unknown value "TASK_STATE_DONE" of enum TaskState`. */
  readonly description: string;
  constructor(field: string, description: string) {
    super(field ? `${field}: ${description}` : description);
    this.field = field;
    this.description = description;
  }
}
