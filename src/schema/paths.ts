import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the package keeps its bundled schemas and overlays (works from src/ and from dist/). */
export const BUNDLED_SCHEMA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../schema");
