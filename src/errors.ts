/**
 * Errors the user can act on. Every failure of the generator that is caused by its input (a schema, a
 * config, a template, an output folder) is a CodegenError: it names the file, the JSON pointer inside it
 * when there is one, and what is wrong. The CLI prints `message` and exits with `exitCode`; anything else
 * that escapes is a bug in a2a-codegen and is reported as such.
 */
export type CodegenErrorKind =
  | "input" // a schema, config or template the user gave is wrong
  | "usage" // the command line is wrong
  | "io"; // the file system refused (unwritable folder, ...)

export interface CodegenErrorOptions {
  file?: string | undefined;
  pointer?: string | undefined;
  kind?: CodegenErrorKind;
  cause?: unknown;
}

export class CodegenError extends Error {
  readonly file: string | undefined;
  readonly pointer: string | undefined;
  readonly kind: CodegenErrorKind;
  /** The bare problem, without the file and pointer prefix. */
  readonly problem: string;

  constructor(problem: string, options: CodegenErrorOptions = {}) {
    const where = [options.file, options.pointer !== undefined ? `at ${options.pointer || "/"}` : undefined]
      .filter((part): part is string => part !== undefined)
      .join(" ");
    super(where ? `${where}: ${problem}` : problem, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "CodegenError";
    this.file = options.file;
    this.pointer = options.pointer;
    this.kind = options.kind ?? "input";
    this.problem = problem;
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

/** Exit codes of the CLI, documented in the README. */
export const EXIT_CODES = {
  ok: 0,
  /** `--check`: the output on disk is not what the generator would write. */
  stale: 1,
  input: 2,
  usage: 2,
  io: 3,
  /** The spec version of an output folder changed and the user's code has type errors against the new output (written). */
  typeErrors: 4,
  /** A bug in a2a-codegen itself. */
  internal: 70,
} as const;

/** Escapes one reference token of a JSON pointer (RFC 6901). */
export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function joinPointer(base: string, ...tokens: Array<string | number>): string {
  return base + tokens.map((t) => "/" + escapePointerToken(t)).join("");
}
