import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CodegenError } from "../errors.js";
import { protoToJsonSchema, type ProtoConversion, type ProtoConversionOptions } from "./to-json-schema.js";

/** The JSON text a2a-codegen writes for a schema or overlay: two-space indentation and a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * `a2a-codegen schema --from-proto`: converts the proto and returns the schema's JSON text, writing it to
 * `outPath` when one is given (creating its folder). The overlay and the warnings are in `conversion`
 * for a caller that wants them (`writeOverlayFromProto` writes the overlay).
 */
export function writeSchemaFromProto(protoPath: string, outPath?: string, options?: ProtoConversionOptions): string {
  const text = jsonText(protoToJsonSchema(protoPath, options).schema);
  if (outPath !== undefined) writeText(outPath, text);
  return text;
}

/** Both files of a version from its proto: `a2a-<v>.json` and `a2a-<v>.overlay.json` texts, written when paths are given. */
export function writeSchemaAndOverlayFromProto(
  protoPath: string,
  out: { schema?: string; overlay?: string } = {},
  options?: ProtoConversionOptions,
): { schema: string; overlay: string; conversion: ProtoConversion } {
  const conversion = protoToJsonSchema(protoPath, options);
  const schema = jsonText(conversion.schema);
  const overlay = jsonText(conversion.overlay);
  if (out.schema !== undefined) writeText(out.schema, schema);
  if (out.overlay !== undefined) writeText(out.overlay, overlay);
  return { schema, overlay, conversion };
}

function writeText(path: string, text: string): void {
  const target = resolve(path);
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CodegenError(`cannot write (${code ?? String(error)})`, { file: path, kind: "io", cause: error });
  }
}
