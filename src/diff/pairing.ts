import type { MethodInfo, MethodRole, ProtocolIR, TypeDecl } from "../ir/types.js";
import { isObject } from "../schema/json.js";

/**
 * Which methods and types of two versions correspond (diff.ts compares each pair): the same name, the same
 * role, or, failing that, a guess that says why (`evidence`): similar method names, definitions that play
 * the same part in corresponding methods, or object definitions that look alike.
 */

export interface MethodPair {
  a: MethodInfo;
  b: MethodInfo;
  /** Set when the pair is a rename. */
  evidence: string | undefined;
  /** The role both play, if any. */
  role: MethodRole | undefined;
}

export function rolesOf(ir: ProtocolIR): Map<string, MethodRole> {
  const roles = new Map<string, MethodRole>();
  for (const [role, method] of Object.entries(ir.profile.methods)) {
    if (method !== undefined) roles.set(method, role as MethodRole);
  }
  return roles;
}

/** Methods of both versions that correspond: same name, same role, or (failing that) similar names. */
export function pairMethods(a: ProtocolIR, b: ProtocolIR): MethodPair[] {
  const rolesA = rolesOf(a);
  const rolesB = rolesOf(b);
  const namesB = new Set(b.methods.map((m) => m.method));
  const namesA = new Set(a.methods.map((m) => m.method));
  const pairs: MethodPair[] = [];
  for (const m of a.methods) {
    const other = b.methods.find((n) => n.method === m.method);
    if (other) pairs.push({ a: m, b: other, evidence: undefined, role: rolesB.get(other.method) });
  }
  let removed = a.methods.filter((m) => !namesB.has(m.method));
  let added = b.methods.filter((m) => !namesA.has(m.method));

  for (const m of removed) {
    const role = rolesA.get(m.method);
    const other = added.find((n) => role !== undefined && rolesB.get(n.method) === role);
    if (other && role) pairs.push({ a: m, b: other, evidence: `same role: ${role}`, role });
  }
  removed = removed.filter((m) => !pairs.some((p) => p.a === m));
  added = added.filter((m) => !pairs.some((p) => p.b === m));

  for (const { from, to, score } of mutualBestMatches(removed, added, (x, y) => methodNameScore(x.method, y.method))) {
    if (score.shared.length > 0) {
      pairs.push({ a: from, b: to, evidence: `similar name: shared ${score.shared.join(", ")}`, role: undefined });
    }
  }
  return pairs.sort((p, q) => compareStrings(p.b.method, q.b.method));
}

interface Similarity {
  /** The values compared lexicographically; higher is more similar. */
  rank: number[];
  shared: string[];
}

/** Token overlap of two method names (path segments split at camelCase), at least half of all tokens. */
function methodNameScore(x: string, y: string): Similarity | undefined {
  const { shared, jaccard } = overlap(tokens(x), tokens(y));
  return jaccard >= 0.5 ? { rank: [jaccard], shared } : undefined;
}

/** Lower-case words of a name: `tasks/pushNotificationConfig/set` → tasks, push, notification, config, set. */
export function tokens(name: string): string[] {
  return (name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g) ?? []).map((t) => t.toLowerCase());
}

function overlap(x: string[], y: string[]): { shared: string[]; jaccard: number } {
  const xs = new Set(x);
  const ys = new Set(y);
  const shared = [...xs].filter((t) => ys.has(t)).sort();
  const all = new Set([...xs, ...ys]).size;
  return { shared, jaccard: all === 0 ? 0 : shared.length / all };
}

/**
 * Pairs each `from` with the `to` it is most similar to, only when that is mutual and without a tie on
 * either side (conservative: an ambiguous match is no match).
 */
function mutualBestMatches<X, Y>(
  froms: X[],
  tos: Y[],
  score: (x: X, y: Y) => Similarity | undefined,
): Array<{ from: X; to: Y; score: Similarity }> {
  const scores = froms.map((x) => tos.map((y) => score(x, y)));
  const best = (candidates: Array<Similarity | undefined>): number | undefined => {
    let index: number | undefined;
    let tie = false;
    candidates.forEach((s, i) => {
      if (s === undefined) return;
      const current = index === undefined ? undefined : candidates[index];
      const order = current === undefined ? 1 : compareRanks(s.rank, current.rank);
      if (order > 0) {
        index = i;
        tie = false;
      } else if (order === 0) tie = true;
    });
    return tie ? undefined : index;
  };
  const matches: Array<{ from: X; to: Y; score: Similarity }> = [];
  froms.forEach((x, i) => {
    const row = scores[i] ?? [];
    const j = best(row);
    if (j === undefined) return;
    const column = scores.map((r) => r[j]);
    const to = tos[j];
    const s = row[j];
    if (best(column) === i && to !== undefined && s !== undefined) matches.push({ from: x, to, score: s });
  });
  return matches;
}

function compareRanks(x: number[], y: number[]): number {
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Type renames: first the definitions that play the same part in corresponding methods, then look-alikes. */
export function pairTypes(a: ProtocolIR, b: ProtocolIR, methodPairs: MethodPair[]): Array<{ from: string; to: string; evidence: string }> {
  const namesA = new Set(a.types.map((t) => t.name));
  const namesB = new Set(b.types.map((t) => t.name));
  const candidates: Array<{ from: string; to: string; evidence: string }> = [];
  for (const pair of methodPairs) {
    const slots: Array<[string, string | undefined, string | undefined]> = [
      ["request", pair.a.requestType, pair.b.requestType],
      ["params", pair.a.paramsType, pair.b.paramsType],
      ["response", pair.a.responseType, pair.b.responseType],
    ];
    for (const [slot, from, to] of slots) {
      if (from === undefined || to === undefined || from === to || namesB.has(from) || namesA.has(to)) continue;
      const evidence = pair.role !== undefined ? `same role: ${slot} of ${pair.role}` : `${slot} of ${pair.b.method}`;
      candidates.push({ from, to, evidence });
    }
  }
  const byRole = withoutConflicts(candidates);

  const removed = a.types.filter((t) => !namesB.has(t.name) && !byRole.some((r) => r.from === t.name));
  const added = b.types.filter((t) => !namesA.has(t.name) && !byRole.some((r) => r.to === t.name));
  const lookAlikes = mutualBestMatches(removed, added, typeSimilarity).map(({ from, to, score }) => ({
    from: from.name,
    to: to.name,
    evidence: `similar properties: ${score.shared.length} of ${propertyNames(from).size + propertyNames(to).size - score.shared.length} shared (${score.shared.join(", ")})`,
  }));
  return [...byRole, ...lookAlikes].sort((x, y) => compareStrings(x.from, y.from));
}

/** Keeps one candidate per (from, to), and drops any name paired with two different names. */
function withoutConflicts(candidates: Array<{ from: string; to: string; evidence: string }>): Array<{ from: string; to: string; evidence: string }> {
  const targets = new Map<string, Set<string>>();
  const sources = new Map<string, Set<string>>();
  for (const c of candidates) {
    targets.set(c.from, (targets.get(c.from) ?? new Set()).add(c.to));
    sources.set(c.to, (sources.get(c.to) ?? new Set()).add(c.from));
  }
  const kept: Array<{ from: string; to: string; evidence: string }> = [];
  for (const c of candidates) {
    if (targets.get(c.from)?.size !== 1 || sources.get(c.to)?.size !== 1) continue;
    if (!kept.some((k) => k.from === c.from)) kept.push(c);
  }
  return kept;
}

function propertyNames(t: TypeDecl): Set<string> {
  const properties = t.schema.properties;
  return new Set(t.kind === "object" && isObject(properties) ? Object.keys(properties) : []);
}

/**
 * Two object definitions look alike when at least 3/4 of their properties are shared (at least two),
 * and their names share a word; ties are broken by how much the names share.
 */
function typeSimilarity(x: TypeDecl, y: TypeDecl): Similarity | undefined {
  const props = overlap([...propertyNames(x)], [...propertyNames(y)]);
  const names = overlap(tokens(x.name), tokens(y.name));
  if (props.shared.length < 2 || props.jaccard < 0.75 || names.shared.length === 0) return undefined;
  return { rank: [props.jaccard, names.jaccard], shared: props.shared };
}

export function compareStrings(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
