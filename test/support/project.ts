import { createRequire } from "node:module";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { protoToJsonSchema } from "../../src/proto/to-json-schema.js";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ValidateFunction } from "ajv";
import type { Validator } from "../../src/runtime/validation.js";

export const ROOT = resolve(import.meta.dirname, "../..");
export const SCHEMA_DIR = join(ROOT, "schema");
export const GENERATED = join(ROOT, "generated");
/** The real-world corpus, copied into the repository (see its README for provenance and labels). */
export const CORPUS_DIR = join(ROOT, "test", "fixtures", "corpus");
export const TEST_VERSIONS = ["0.1.0", "0.2.5", "0.3.0"] as const;

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (o: object) => import("ajv").Ajv }).default;

/** The bundled schema of a version: its JSON Schema file, or (1.0 on) the schema the proto front end derives. */
export function readSchema(version: string): Record<string, unknown> {
  const json = join(SCHEMA_DIR, `a2a-${version}.json`);
  if (existsSync(json)) return JSON.parse(readFileSync(json, "utf8")) as Record<string, unknown>;
  return protoToJsonSchema(join(SCHEMA_DIR, `a2a-${version}.proto`)).schema;
}

const independent = new Map<string, import("ajv").Ajv>();
/**
 * A validator compiled at test time straight from the bundled schema file, with plain Ajv: none of the
 * generator's normalization or dispatch. `format` is not asserted, as in the generated validators.
 */
export function independentValidator(version: string, definition: string): ValidateFunction {
  let ajv = independent.get(version);
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateFormats: false });
    ajv.addSchema(readSchema(version), "a2a");
    independent.set(version, ajv);
  }
  const schema = readSchema(version);
  const key = "$defs" in schema ? "$defs" : "definitions";
  const validate = ajv.getSchema(`a2a#/${key}/${definition}`);
  if (!validate) throw new Error(`no definition ${definition} in ${version}`);
  return validate;
}

type GeneratedValidators = Record<string, Validator<unknown>>;
const generatedCache = new Map<string, GeneratedValidators>();
/** The committed generated validators of a version, imported as a user would. */
export async function generatedValidators(version: string): Promise<GeneratedValidators> {
  let mod = generatedCache.get(version);
  if (!mod) {
    const imported = (await import(join(GENERATED, `a2a-${version}`, "validators.ts"))) as { validators: GeneratedValidators };
    mod = imported.validators;
    generatedCache.set(version, mod);
  }
  return mod;
}

export function tempDir(prefix = "a2a-codegen-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A temporary folder inside the project, where generated code resolves the project's packages (express, ...). */
export function projectTempDir(prefix = "a2a-codegen-test-"): string {
  const base = join(ROOT, "node_modules", ".cache", "a2a-codegen-tests");
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}
