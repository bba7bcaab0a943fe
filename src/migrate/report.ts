import type { Unchanged } from "./rewrite.js";

/** What `migrate` could not change, one line each: `file:line: old → new: hint`, in file order. */
export function formatUnchanged(unchanged: readonly Unchanged[]): string {
  const sorted = [...unchanged].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const u of sorted) {
    const line = `  ${u.file}:${u.line}: ${u.old} → ${u.new}: ${u.hint}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  return lines.join("\n");
}
