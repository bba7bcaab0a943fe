/**
 * The rewrite of a union's tag checks (`part.kind === "text"`, `switch (part.kind)`) into the presence
 * checks of the new version's members (`"text" in part`), for one file's FileRewriter.
 */
import type * as TsMorph from "ts-morph";
import type { FileRewriter } from "./rewrite.js";
import type { JsonValue } from "../runtime/compat/converter.js";
import { disjunctsOf, isEquality, isPlainReference, presence } from "./syntax.js";

type Node = TsMorph.Node;

// --- `part.kind === "text"`: the union's tag checks become presence checks --------------------

export function kindCheck(r: FileRewriter, node: TsMorph.BinaryExpression): void {
  const { Node: N } = r.morph;
  const op = node.getOperatorToken().getKind();
  // The other way: `"task" in r` on a result `to` returns bare → `r.kind === "task"`.
  if (op === r.K.InKeyword) {
    const test = tagOfPresence(r, node);
    if (test !== undefined) r.edit(node.getStart(), node.getEnd(), test.includes(" && ") ? parenthesized(r, node, `(${test})`) : test);
    return;
  }
  // `"raw" in p || "url" in p`, both the same tag the other way: one test.
  if (op === r.K.BarBarToken) {
    const disjuncts = disjunctsOf(r.morph, node);
    const tests = disjuncts.map((d) => (N.isBinaryExpression(d) && d.getOperatorToken().getKind() === r.K.InKeyword ? tagOfPresence(r, d) : undefined));
    const unique = [...new Set(tests)];
    if (tests.every((t) => t !== undefined) && unique.length < tests.length) r.edit(node.getStart(), node.getEnd(), parenthesized(r, node, `(${unique.join(" || ")})`));
    return;
  }
  if (!isEquality(op, r.K)) return;
  const [access, literal] = N.isPropertyAccessExpression(node.getLeft()) ? [node.getLeft(), node.getRight()] : [node.getRight(), node.getLeft()];
  if (!N.isPropertyAccessExpression(access) || !(N.isStringLiteral(literal) || N.isNoSubstitutionTemplateLiteral(literal))) return;
  const subject = access.getExpression();
  const value = literal.getLiteralValue();
  const field = access.getName();
  const negated = op === r.K.ExclamationEqualsEqualsToken || op === r.K.ExclamationEqualsToken;
  // A wrapped client result (`result.kind === "task"` → `"task" in result`).
  const wrapped = r.wrappedMembersOf(subject);
  if (wrapped) {
    const member = wrapped.find((m) => m.tags[field] === value);
    if (member) r.edit(node.getStart(), node.getEnd(), parenthesized(r, node, presence([member.property], subject.getText(), negated)));
    return;
  }
  const definition = r.definitionOf(subject.getType());
  const union = definition === undefined ? undefined : (r.rules.unions.get(definition) ?? r.rules.unions.get(r.rules.unionOf.get(definition) ?? ""));
  if (!union) return;
  const members = union.members.filter((m) => m.when.some((c) => c.path === field && "equals" in c && c.equals === value));
  const markers = [...new Set(members.map((m) => m.marker))];
  if (members.length === 0 || markers.some((m) => m === undefined)) return;
  if (!isPlainReference(r.morph, subject)) {
    r.report(node, `${union.source}.${field} === "${value}"`, presence(markers as string[], "…", negated), `store the value in a variable first, then test ${presence(markers as string[], "it", negated)}`);
    return;
  }
  r.edit(node.getStart(), node.getEnd(), parenthesized(r, node, presence(markers as string[], subject.getText(), negated)));
}

/**
 * `switch (x.kind) { case "text": … }` → `switch (true) { case "text" in x: … }` (TypeScript narrows by
 * such cases as by `if`s), when every case is a tag value the rules turn into a presence test.
 */
export function switchOnTag(r: FileRewriter, node: TsMorph.SwitchStatement): void {
  const { Node: N } = r.morph;
  const access = node.getExpression();
  if (!N.isPropertyAccessExpression(access)) return;
  const subject = access.getExpression();
  const tests: Array<[Node, string]> = [];
  for (const clause of node.getCaseBlock().getClauses()) {
    if (!N.isCaseClause(clause)) continue;
    const literal = clause.getExpression();
    if (!N.isStringLiteral(literal) && !N.isNoSubstitutionTemplateLiteral(literal)) return;
    const test = tagTest(r, subject, access.getName(), literal.getLiteralValue());
    if (test === undefined) return;
    tests.push([literal, test]);
  }
  if (tests.length === 0) return;
  r.switches.add(node);
  r.edit(access.getStart(), access.getEnd(), "true");
  for (const [literal, test] of tests) r.edit(literal.getStart(), literal.getEnd(), test);
}

/** The presence test a tag value becomes (`"task" in r`, `"raw" in p || "url" in p`), for a wrapped result or a union the rules map. */
export function tagTest(r: FileRewriter, subject: Node, field: string, value: string): string | undefined {
  const wrapped = r.wrappedMembersOf(subject);
  if (wrapped) {
    const member = wrapped.find((m) => m.tags[field] === value);
    return member ? presence([member.property], subject.getText(), false) : undefined;
  }
  const definition = r.definitionOf(subject.getType());
  const union = definition === undefined ? undefined : (r.rules.unions.get(definition) ?? r.rules.unions.get(r.rules.unionOf.get(definition) ?? ""));
  const members = union?.members.filter((m) => m.when.some((c) => c.path === field && "equals" in c && c.equals === value)) ?? [];
  const markers = [...new Set(members.map((m) => m.marker))];
  if (members.length === 0 || markers.some((m) => m === undefined) || !isPlainReference(r.morph, subject)) return undefined;
  return presence(markers as string[], subject.getText(), false).replace(/^\((.*)\)$/, "$1");
}

/**
 * The other way (presence → tag): `"task" in r` on a result `to` returns bare → `r.kind === "task"`;
 * `"raw" in p` on a union `to` tells apart by a tag → `p.kind === "file"`.
 */
function tagOfPresence(r: FileRewriter, node: TsMorph.BinaryExpression): string | undefined {
  const { Node: N } = r.morph;
  const left = node.getLeft();
  if (!N.isStringLiteral(left)) return undefined;
  const subject = node.getRight();
  const property = left.getLiteralValue();
  let tags: Array<[string, JsonValue]> = [];
  const member = r.wrappedMembersOf(subject, r.rules.unwrapped)?.find((m) => m.property === property);
  if (member) tags = Object.entries(member.tags);
  else {
    const definition = r.definitionOf(subject.getType());
    const union = definition === undefined ? undefined : (r.rules.unions.get(definition) ?? r.rules.unions.get(r.rules.unionOf.get(definition) ?? ""));
    const byPresence = union?.members.find((m) => m.when.length === 1 && m.when.some((c) => c.path === property && "present" in c));
    if (byPresence) tags = Object.entries(byPresence.rule.set);
  }
  if (tags.length === 0 || !isPlainReference(r.morph, subject)) return undefined;
  return tags.map(([field, value]) => `${subject.getText()}.${field} === ${JSON.stringify(value)}`).join(" && ");
}

/** A test in parentheses, unless where it stands needs none (`if (…)`, `a || …`). */
export function parenthesized(r: FileRewriter, node: Node, test: string): string {
  const { Node: N } = r.morph;
  if (!test.startsWith("(")) return test;
  const parent = node.getParent();
  const bare =
    !parent ||
    N.isIfStatement(parent) ||
    N.isWhileStatement(parent) ||
    N.isParenthesizedExpression(parent) ||
    N.isReturnStatement(parent) ||
    N.isVariableDeclaration(parent) ||
    N.isArrowFunction(parent) ||
    (N.isBinaryExpression(parent) && [r.K.BarBarToken, r.K.AmpersandAmpersandToken].includes(parent.getOperatorToken().getKind()) && !test.includes(" || "));
  return bare ? test.slice(1, -1) : test;
}
