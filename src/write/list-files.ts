import { readdirSync } from "node:fs";
import { join } from "node:path";

/** Every file below a folder (a link counted as a file), as relative paths with "/" separators, sorted; none below the `skipped` folders (relative paths too). */
export function listFiles(dir: string, skipped: readonly string[] = []): string[] {
  const out: string[] = [];
  // Relative paths built as the walk goes down (a path.relative per file cost more than the listing).
  const walk = (d: string, prefix: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!skipped.includes(`${prefix}${entry.name}`)) walk(join(d, entry.name), `${prefix}${entry.name}/`);
      } else out.push(`${prefix}${entry.name}`);
    }
  };
  walk(dir, "");
  return out.sort();
}
