/**
 * Line diffs for `migrate`: the unified diff `--dry-run` prints, and the three-way merge that moves the
 * scaffold's own files to the new version's while keeping the user's edits.
 */

type Op = { kind: "same" | "del" | "add"; line: string };

/** The lines of a text, each with its line ending. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A shortest edit script between two line lists (LCS by dynamic programming; files here are small). */
function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  // Common prefix and suffix first: most migrated files differ in a few lines.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = table[i] as Uint32Array;
    const below = table[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) {
      row[j] = a[start + i] === b[start + j] ? (below[j + 1] as number) + 1 : Math.max(below[j] as number, row[j + 1] as number);
    }
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: "same", line }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[start + i] === b[start + j]) {
      ops.push({ kind: "same", line: a[start + i] as string });
      i++;
      j++;
    } else if (i < n && (j === m || ((table[i + 1] as Uint32Array)[j] as number) >= ((table[i] as Uint32Array)[j + 1] as number))) {
      ops.push({ kind: "del", line: a[start + i] as string });
      i++;
    } else {
      ops.push({ kind: "add", line: b[start + j] as string });
      j++;
    }
  }
  for (const line of a.slice(endA)) ops.push({ kind: "same", line });
  return ops;
}

/** A unified diff (`--- a/path`, `+++ b/path`, hunks with 3 lines of context); empty when the texts are equal. */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const ops = diffLines(lines(before), lines(after));
  const out = [`--- a/${path}\n`, `+++ b/${path}\n`];
  const changed = ops.map((o, k) => (o.kind === "same" ? -1 : k)).filter((k) => k >= 0);
  let k = 0;
  while (k < changed.length) {
    const first = changed[k] as number;
    let last = first;
    while (k + 1 < changed.length && (changed[k + 1] as number) - last <= 2 * context) last = changed[++k] as number;
    k++;
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length, last + context + 1);
    let oldStart = 1;
    let newStart = 1;
    for (const o of ops.slice(0, from)) {
      if (o.kind !== "add") oldStart++;
      if (o.kind !== "del") newStart++;
    }
    const hunk = ops.slice(from, to);
    const oldCount = hunk.filter((o) => o.kind !== "add").length;
    const newCount = hunk.filter((o) => o.kind !== "del").length;
    out.push(`@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@\n`);
    for (const o of hunk) {
      const line = o.line.endsWith("\n") ? o.line : `${o.line}\n\\ No newline at end of file\n`;
      out.push(`${o.kind === "same" ? " " : o.kind === "del" ? "-" : "+"}${line}`);
    }
  }
  return out.join("");
}

/** Where `ours` and `theirs` both changed the same lines of `base` differently. */
export interface MergeResult {
  text: string;
  conflicts: number;
}

/**
 * A three-way line merge: the changes from `base` to `theirs` applied to `ours`; where both changed the
 * same lines differently, both versions are kept between conflict markers (as git writes them).
 */
export function merge3(base: string, ours: string, theirs: string, labels: { ours: string; theirs: string }): MergeResult {
  const b = lines(base);
  const o = lines(ours);
  const t = lines(theirs);
  // For each side: which base lines are kept, and what is inserted before each base line (index b.length: at the end).
  const side = (other: readonly string[]) => {
    const kept = new Array<boolean>(b.length).fill(false);
    const inserted: string[][] = Array.from({ length: b.length + 1 }, () => []);
    let at = 0;
    for (const op of diffLines(b, other)) {
      if (op.kind === "same") kept[at++] = true;
      else if (op.kind === "del") at++;
      else (inserted[at] as string[]).push(op.line);
    }
    return { kept, inserted };
  };
  const so = side(o);
  const st = side(t);
  const out: string[] = [];
  let conflicts = 0;
  const same = (x: string[], y: string[]) => x.length === y.length && x.every((l, k) => l === y[k]);
  const nl = (xs: string[]) => xs.map((l) => (l.endsWith("\n") ? l : `${l}\n`));
  // A chunk: the insertions before base line i, and the run of base lines from i that a side deletes (with
  // the insertions among them), up to the next line both keep.
  let i = 0;
  while (i <= b.length) {
    let j = i;
    while (j < b.length && (!so.kept[j] || !st.kept[j])) j++;
    const render = (s: typeof so) => {
      const text: string[] = [];
      for (let k = i; k <= j; k++) {
        text.push(...(s.inserted[k] as string[]));
        if (k < j && s.kept[k]) text.push(b[k] as string);
      }
      return text;
    };
    const mine = render(so);
    const yours = render(st);
    const original = b.slice(i, j);
    if (same(mine, yours) || same(yours, original)) out.push(...mine);
    else if (same(mine, original)) out.push(...yours);
    else {
      conflicts++;
      out.push(`<<<<<<< ${labels.ours}\n`, ...nl(mine), "=======\n", ...nl(yours), `>>>>>>> ${labels.theirs}\n`);
    }
    // b[j], which both keep (or the end).
    if (j < b.length) out.push(b[j] as string);
    i = j + 1;
  }
  return { text: out.join(""), conflicts };
}
