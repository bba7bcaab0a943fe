/**
 * The known name closest to a misspelled one ("documentationURL" → "documentationUrl"), or undefined when
 * none is close: the same letters in another case, else an edit distance of at most a third of the name.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = row;
  }
  return previous[b.length] as number;
}
