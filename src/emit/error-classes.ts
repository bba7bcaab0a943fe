import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import type { TemplateRenderer } from "./templates.js";

/**
 * The one name of an A2A error's class, declared once in the output's errors.ts and re-exported by the
 * server (server/core.ts: what an executor throws) and the client (client.ts: what a call rejects with):
 * `TaskNotFoundError` → `A2ATaskNotFoundError`. The
 * specification's own name (`TaskNotFoundError`) stays the name of the wire shape in models.ts (the
 * error object's interface, its validator and `A2A_ERROR_CODES` key), so a name never means two things:
 * `TaskNotFoundError` is the JSON object, `A2ATaskNotFoundError` the class, like every other error class
 * of the runtime (`A2AError`, `A2ATransportError`, ...).
 */
export function errorClassName(definition: string): string {
  return `A2A${definition.replace(/Error$/, "")}Error`;
}

/**
 * Names the generated client or server declares or re-exports itself: an error definition must not
 * become one of them (`ServerError` would be the server's `A2AServerError`).
 */
const RESERVED_CLASSES: Record<string, "client" | "server"> = {
  A2AClient: "client",
  A2AResponseValidationError: "client",
  A2ATransportError: "client",
  A2AError: "server",
  A2AServerCore: "server",
  A2AServerError: "server",
  A2AService: "server",
};

export interface ErrorClass {
  /** The class, e.g. "A2ATaskNotFoundError". */
  className: string;
  /** The schema's definition it is the error of, e.g. "TaskNotFoundError". */
  definition: string;
  code: number;
  /** The message a class made without one carries, e.g. "Task not found". */
  message: string;
  description: string | undefined;
}

/** One class per error of the version's table (both server and client), each name once. */
export function errorClasses(ir: ProtocolIR): ErrorClass[] {
  const seen = new Map<string, string>();
  return ir.errors.map((e) => {
    const className = errorClassName(e.name);
    const at = { file: ir.source.file, pointer: `/definitions/${e.name}` };
    const other = seen.get(className);
    if (other !== undefined) throw new CodegenError(`error definitions "${other}" and "${e.name}" would both be the client's error class "${className}"; rename one of them`, at);
    const owner = Object.hasOwn(RESERVED_CLASSES, className) ? RESERVED_CLASSES[className] : undefined;
    if (owner !== undefined) throw new CodegenError(`error definition "${e.name}" would be the ${owner}'s error class "${className}", which the ${owner} already has; rename it`, at);
    seen.set(className, e.name);
    return {
      className,
      definition: e.name,
      code: e.code,
      message: e.defaultMessage ?? e.name.replace(/Error$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2"),
      description: e.description,
    };
  });
}

/** errors.ts: the version's error classes, one per code of its table, shared by the server and the client. */
export function emitErrors(ir: ProtocolIR, templates: TemplateRenderer, header: string): string {
  return templates.render("core/errors.ts.hbs", { header, specVersion: ir.specVersion, errors: errorClasses(ir) });
}
