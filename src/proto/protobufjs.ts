import { createRequire } from "node:module";
import type protobuf from "protobufjs";

const require = createRequire(import.meta.url);

/**
 * protobufjs (a CommonJS package), loaded on first use: a generation from a JSON Schema whose HTTP routes
 * come from the output cache never needs it, and its loading was a tenth of such a run.
 */
export function protobufjs(): typeof protobuf {
  return require("protobufjs") as typeof protobuf;
}
