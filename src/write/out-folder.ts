import { join } from "node:path";

/** The folder a version's output goes in inside a parent folder (`generate --all --out <parent>`). */
export function versionFolderName(version: string): string {
  return `a2a-${version}`;
}

/** The output folder of a version when none is given: `generated/a2a-<version>`, relative to the working folder. */
export function defaultOutDir(version: string): string {
  return join("generated", versionFolderName(version));
}
