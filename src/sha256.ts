import type { Hash } from "node:crypto";
import { createRequire } from "node:module";

/**
 * SHA-256, with node:crypto loaded when first used: loading it takes 6 ms, as much as the rest of an
 * up-to-date `generate` beyond node's start, which reads and hashes nothing (write/up-to-date.ts).
 */
const requireBuiltin = createRequire(import.meta.url);

export function newSha256(): Hash {
  return (requireBuiltin("node:crypto") as typeof import("node:crypto")).createHash("sha256");
}

/** The hex SHA-256 of a text (as UTF-8) or of bytes. */
export function sha256(content: string | Uint8Array): string {
  return newSha256().update(content).digest("hex");
}
