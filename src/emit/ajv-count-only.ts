/**
 * Where Ajv's standalone code only counts errors, it stops building the error list. Ajv evaluates the
 * subschema of an `if` (and of a few other keywords) like any other, pushing an empty error per failed
 * check, then compares the error count with the count before and cuts the list back:
 *
 *     const _errs10 = errors;let valid2 = true;const _errs11 = errors;if(isObject(data)){let missing5;
 *     if((data.kind === undefined) && (missing5 = "kind")){vErrors = addError(vErrors);errors++;}}
 *     var _valid2 = _errs11 === errors;errors = _errs10;vErrors = truncateErrors(vErrors, _errs10);
 *
 * In such a region (from `const _errsA = errors;` to the unconditional `errors = _errsA;vErrors =
 * truncateErrors(vErrors, _errsA);` at the same depth) where the list is touched only by those empty
 * pushes and cut-backs, the list ends as it began: the region keeps counting (`errors++`, the same
 * comparisons) and leaves the list alone. The `missingN` variable Ajv sets for a `required` error that
 * is never built goes too. Same results, same errors, less code and less work.
 */

/** One of Ajv's standalone functions: its name, head and body. */
const FUNCTION = /function (validate\d+)\(data, [^)]*\)\{(.*?)\1\.errors = vErrors;return errors === 0;\}/g;

export function withoutCountOnlyLists(code: string): string {
  return code.replace(FUNCTION, (whole, _name: string, body: string) => {
    const rewritten = withoutUnreadMissing(countOnlyRegions(body));
    return rewritten === body ? whole : whole.replace(body, () => rewritten);
  });
}

const EMPTY_PUSH = "vErrors = addError(vErrors);";
const CUT_BACK = /vErrors = truncateErrors\(vErrors, _errs\d+\);/g;

function countOnlyRegions(body: string): string {
  const start = /const (_errs\d+) = errors;/g;
  const regions: Array<{ from: number; to: number; mark: string }> = [];
  for (let m = start.exec(body); m !== null; m = start.exec(body)) {
    const mark = m[1] as string;
    const endText = `errors = ${mark};vErrors = truncateErrors(vErrors, ${mark});`;
    const end = body.indexOf(endText, m.index);
    if (end < 0) continue;
    const to = end + endText.length;
    if (regions.some((r) => m !== null && m.index >= r.from && m.index < r.to)) continue;
    const inner = body.slice(m.index, end);
    if (!countsOnly(inner) || !atSameDepth(inner)) continue;
    regions.push({ from: m.index, to, mark });
  }
  if (regions.length === 0) return body;
  let out = "";
  let from = 0;
  for (const region of regions) {
    out += body.slice(from, region.from);
    out += body.slice(region.from, region.to).split(EMPTY_PUSH).join("").replace(CUT_BACK, "");
    from = region.to;
  }
  return out + body.slice(from);
}

/** The list is only pushed empty errors and cut back here: nothing reads it, nothing else is added to it. */
function countsOnly(text: string): boolean {
  const rest = text.split(EMPTY_PUSH).join("").replace(CUT_BACK, "");
  return !/\bvErrors\b/.test(rest) && !/\bvalidate\d+\(/.test(rest) && !/\breturn\b/.test(rest);
}

/** The braces of `text` (outside string literals) balance and never close a block opened before it. */
function atSameDepth(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
    } else if (c === "{") depth++;
    else if (c === "}" && --depth < 0) return false;
  }
  return depth === 0;
}

/** `let missingN;if((x === undefined) && (missingN = "p")){` → `if(x === undefined){` where nothing reads missingN. */
function withoutUnreadMissing(body: string): string {
  return body.replace(
    /let (missing\d+);if\(\(([\w$.]+(?:\[(?:"(?:[^"\\]|\\.)*"|\w+)\])?) === undefined\) && \(\1 = (?:"(?:[^"\\]|\\.)*"|\w+)\)\)\{/g,
    (whole, name: string, property: string) => (body.split(new RegExp(`\\b${name}\\b`)).length - 1 === 2 ? `if(${property} === undefined){` : whole),
  );
}
