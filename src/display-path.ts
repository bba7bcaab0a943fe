import { relative } from "node:path";

/** A path as the user should read it: relative to `cwd` when it is inside it, else absolute. */
export function displayPath(path: string, cwd: string = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") ? rel : path;
}
