import type { ProtocolIR } from "../ir/types.js";
import { loadProtocol } from "../load-protocol.js";
import { bundledVersions } from "../schema/load.js";

/** The IR of a bundled version, through the front end `generate` uses (no emitting, no formatting). */
export function bundledIR(version: string): ProtocolIR {
  return loadProtocol({ spec: version }).ir;
}

/** The IR of a bundled version id ("0.2.5"), or else of a schema file (overlay as `generate` finds it). */
export async function protocolIR(versionOrFile: string, cwd: string = process.cwd()): Promise<ProtocolIR> {
  if (bundledVersions().includes(versionOrFile)) return bundledIR(versionOrFile);
  return loadProtocol({ schema: versionOrFile, cwd }).ir;
}
