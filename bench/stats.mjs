// The summaries the benches judge by: the median of a set of measures (of an even number, the mean of the
// two middle ones) and its middle half (the lower and upper quartiles), as printed beside a verdict.

/** The median of `values` (0 for none). */
export function median(values) {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The lower and upper quartiles of `values`: where the middle half of them lies. */
export function middleHalf(values) {
  const s = [...values].sort((a, b) => a - b);
  return [s[Math.floor((s.length - 1) / 4)], s[Math.ceil((3 * (s.length - 1)) / 4)]];
}
