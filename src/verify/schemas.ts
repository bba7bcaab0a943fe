/**
 * What every probe of `a2a-codegen verify` shares: the version's validators (the same Ajv schema the
 * generated code validates with), and how a check ends — a failure names what was seen, a skip says why.
 */
import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions, ValidateFunction } from "ajv";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "../ir/validator-schema.js";
import type { ProtocolIR } from "../ir/types.js";
import type { CheckDeclaration } from "./checks.js";

const require = createRequire(import.meta.url);
const loadAjv = () => (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;

/** The metadata key that marks verify's own messages (an agent may skip work for them). */
export const VERIFY_MARK = "a2a-codegen-verify";
/** The text of verify's own messages. */
export const PROBE_TEXT = "a2a-codegen verify: conformance probe (safe to ignore)";

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** A check that did not hold: its message is what was seen. */
export class Failure extends Error {}
/** A check that could not run: its message is why. */
export class Skip extends Error {}
export const fail = (message: string): never => {
  throw new Failure(message);
};
export const skip = (message: string): never => {
  throw new Skip(message);
};

/** Runs one check (when the filters keep it) and records its outcome; true when it passed. */
export type Runner = (declaration: CheckDeclaration, body: () => Promise<void> | void) => Promise<boolean>;

/** The validators of a version's definitions, compiled once each. */
export class Schemas {
  private readonly ajv: AjvClass;
  private readonly cache = new Map<string, ValidateFunction>();
  constructor(readonly ir: ProtocolIR) {
    this.ajv = new (loadAjv())({ ...AJV_OPTIONS });
    this.ajv.addSchema(validatorSchema(ir));
  }
  /** Whether the version defines `definition`. */
  has(definition: string): boolean {
    return this.ajv.getSchema(`${SCHEMA_ID}#/definitions/${definition}`) !== undefined;
  }
  /** Fails naming the first issues when `value` is not a valid `definition`. */
  expect(definition: string, value: unknown, what: string): void {
    let validate = this.cache.get(definition);
    if (!validate) {
      validate = this.ajv.getSchema(`${SCHEMA_ID}#/definitions/${definition}`);
      if (!validate) throw new Error(`the schema has no ${definition}`);
      this.cache.set(definition, validate);
    }
    if (!validate(value)) {
      const issues = (validate.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "/"} ${e.message ?? ""}`.trim());
      fail(`${what} is not a valid ${definition}: ${issues.join("; ")}`);
    }
  }
}

/** The body of an HTTP answer as a JSON object (a non-object value is wrapped as `{ value }`); fails when it is not JSON. */
export async function jsonBody(response: Response): Promise<Json> {
  const text = await response.text();
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : { value };
  } catch {
    return fail(`HTTP ${response.status}: the body is not JSON: ${text.slice(0, 120)}`);
  }
}
