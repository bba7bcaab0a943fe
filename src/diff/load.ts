import { generate } from "../generate.js";
import { buildIR } from "../ir/build.js";
import { bundledOverlay } from "../ir/overlay.js";
import type { ProtocolIR } from "../ir/types.js";
import { bundledVersions, loadSchemaSource } from "../schema/load.js";
import { normalizeSchema } from "../schema/normalize.js";

/**
 * The IR of a bundled version, without the emitting and formatting `generate` also does (the same load,
 * normalize and build steps; a test checks it equals `generate({ spec }).ir`).
 */
export function bundledIR(version: string): ProtocolIR {
  const source = loadSchemaSource({ spec: version });
  const schema = normalizeSchema(source.json, source.displayPath);
  return buildIR({
    schema,
    overlay: bundledOverlay(source, version),
    specVersion: version,
    versionBasis: "bundled",
    file: source.displayPath,
    sha256: source.sha256,
  });
}

/** The IR of a bundled version id ("0.2.5"), or else of a schema file (overlay as `generate` finds it). */
export async function protocolIR(versionOrFile: string, cwd: string = process.cwd()): Promise<ProtocolIR> {
  if (bundledVersions().includes(versionOrFile)) return bundledIR(versionOrFile);
  return (await generate({ schema: versionOrFile, cwd })).ir;
}
