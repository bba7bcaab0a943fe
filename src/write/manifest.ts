import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { sha256 } from "../sha256.js";

/** The file, in every output folder, that lists what a2a-codegen owns there. */
export const MANIFEST_FILE = "a2a-codegen.manifest.json";

export interface Manifest {
  generator: "a2a-codegen";
  generatorVersion: string;
  specVersion: string;
  schema: { file: string; sha256: string };
  files: Array<{ path: string; sha256: string }>;
}

export function manifestText(manifest: Omit<Manifest, "files">, files: Record<string, string>): string {
  const full: Manifest = {
    ...manifest,
    files: Object.keys(files)
      .sort()
      .map((path) => ({ path, sha256: sha256(files[path] as string) })),
  };
  return JSON.stringify({ $comment: "Files a2a-codegen owns in this folder; it never touches any other. Do not edit.", ...full }, null, 2) + "\n";
}

/** The manifest of an output folder, or undefined when it has none (or an unreadable one). */
export function readManifest(dir: string): Manifest | undefined {
  const path = join(dir, MANIFEST_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return parseManifest(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

/** A manifest from its text, or undefined when the text is not one. */
export function parseManifest(text: string): Manifest | undefined {
  try {
    const json = JSON.parse(text) as Partial<Manifest>;
    if (json.generator !== "a2a-codegen" || !Array.isArray(json.files)) return undefined;
    return json as Manifest;
  } catch {
    return undefined;
  }
}
