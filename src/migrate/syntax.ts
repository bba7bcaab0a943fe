import type * as TsMorph from "ts-morph";
import type { Edit, Morph } from "./rewrite.js";

/**
 * Syntax helpers of the rewrite (./rewrite.ts): which tests a condition makes, where a call's result is
 * bound, what text a presence test is, and how edits apply to a file's text.
 */

type Node = TsMorph.Node;

export function isEquality(kind: TsMorph.SyntaxKind, K: typeof TsMorph.SyntaxKind): boolean {
  return kind === K.EqualsEqualsEqualsToken || kind === K.ExclamationEqualsEqualsToken || kind === K.EqualsEqualsToken || kind === K.ExclamationEqualsToken;
}

export function presence(markers: readonly string[], subject: string, negated: boolean): string {
  const test = markers.map((m) => `${JSON.stringify(m)} in ${subject}`).join(" || ");
  if (negated) return `!(${test})`;
  return markers.length > 1 ? `(${test})` : test;
}

export function isPlainReference(morph: Morph, node: Node): boolean {
  const { Node: N } = morph;
  if (N.isIdentifier(node) || node.getKind() === morph.SyntaxKind.ThisKeyword) return true;
  return N.isPropertyAccessExpression(node) && isPlainReference(morph, node.getExpression());
}

export function propertyName(morph: Morph, prop: TsMorph.ObjectLiteralElementLike): string | undefined {
  const { Node: N } = morph;
  return N.isPropertyAssignment(prop) || N.isShorthandPropertyAssignment(prop) || N.isMethodDeclaration(prop) ? prop.getName() : undefined;
}

/** The tests of an `a && b && c` condition (the condition itself otherwise). */
export function conjuncts(morph: Morph, condition: Node): Node[] {
  const { Node: N } = morph;
  if (N.isParenthesizedExpression(condition)) return conjuncts(morph, condition.getExpression());
  if (N.isBinaryExpression(condition) && condition.getOperatorToken().getKind() === morph.SyntaxKind.AmpersandAmpersandToken) {
    return [...conjuncts(morph, condition.getLeft()), ...conjuncts(morph, condition.getRight())];
  }
  return [condition];
}

/** Whether a statement always leaves the block it is in (ends with return, throw, break or continue). */
export function exits(morph: Morph, statement: TsMorph.Statement): boolean {
  const { Node: N } = morph;
  if (N.isBlock(statement)) {
    const last = statement.getStatements().at(-1);
    return last !== undefined && exits(morph, last);
  }
  return N.isReturnStatement(statement) || N.isThrowStatement(statement) || N.isBreakStatement(statement) || N.isContinueStatement(statement);
}

/** `subject.field === "value"` (or !==) on the named variable. */
export function tagCheck(morph: Morph, condition: Node, name: string): { field: string; value: string; negated: boolean } | undefined {
  const { Node: N } = morph;
  if (!N.isBinaryExpression(condition)) return undefined;
  const K = morph.SyntaxKind;
  const op = condition.getOperatorToken().getKind();
  if (!isEquality(op, K)) return undefined;
  const [access, literal] = N.isPropertyAccessExpression(condition.getLeft()) ? [condition.getLeft(), condition.getRight()] : [condition.getRight(), condition.getLeft()];
  if (!N.isPropertyAccessExpression(access) || access.getExpression().getText() !== name || !N.isStringLiteral(literal)) return undefined;
  return { field: access.getName(), value: literal.getLiteralValue(), negated: op === K.ExclamationEqualsEqualsToken || op === K.ExclamationEqualsToken };
}

/** The variable a call's result is bound to: `const r = await call()` or `for await (const r of call())`. */
export function bindingOf(morph: Morph, call: TsMorph.CallExpression): TsMorph.Identifier | undefined {
  const { Node: N } = morph;
  let node: Node = call;
  const parent = node.getParent();
  if (parent && N.isAwaitExpression(parent)) node = parent;
  const holder = node.getParent();
  if (holder && N.isVariableDeclaration(holder) && holder.getInitializer() === node) {
    const name = holder.getNameNode();
    return N.isIdentifier(name) ? name : undefined;
  }
  if (holder && N.isForOfStatement(holder) && holder.getExpression() === node) {
    const init = holder.getInitializer();
    if (N.isVariableDeclarationList(init)) {
      const name = init.getDeclarations()[0]?.getNameNode();
      return name && N.isIdentifier(name) ? name : undefined;
    }
  }
  return undefined;
}

export function callOfBinding(morph: Morph, declaration: TsMorph.VariableDeclaration): TsMorph.CallExpression | undefined {
  const { Node: N } = morph;
  let init: Node | undefined = declaration.getInitializer();
  if (init && N.isAwaitExpression(init)) init = init.getExpression();
  if (init && N.isCallExpression(init)) return init;
  const list = declaration.getParent();
  const loop = list?.getParent();
  if (loop && N.isForOfStatement(loop)) {
    const expression = loop.getExpression();
    return N.isCallExpression(expression) ? expression : undefined;
  }
  return undefined;
}

/** `…/a2a-0.3.0/…` → `…/a2a-1.0.1/…` in a module specifier. */
export function movePath(specifier: string, from: string, to: string): string {
  return specifier.replace(new RegExp(`(^|/)a2a-${from.replace(/\./g, "\\.")}(?=/|$)`), `$1a2a-${to}`);
}

/** Applies non-overlapping edits (an edit inside one already kept is dropped: the outer one rewrote its text). */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  // By position; at one position an insertion first (it never overlaps what follows), then the longest edit.
  const sorted = [...edits].sort((a, b) => a.start - b.start || Number(b.start === b.end) - Number(a.start === a.end) || b.end - a.end);
  const kept: Edit[] = [];
  for (const e of sorted) {
    const last = kept[kept.length - 1];
    if (last && e.start < last.end) continue;
    if (last && e.start === last.end && e.start === e.end && last.start === last.end && e.text === last.text) continue;
    kept.push(e);
  }
  let out = "";
  let at = 0;
  for (const e of kept) {
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/** The tests of an `a || b || c` expression. */
export function disjunctsOf(morph: Morph, expression: Node): Node[] {
  const { Node: N } = morph;
  if (N.isParenthesizedExpression(expression)) return disjunctsOf(morph, expression.getExpression());
  if (N.isBinaryExpression(expression) && expression.getOperatorToken().getKind() === morph.SyntaxKind.BarBarToken) {
    return [...disjunctsOf(morph, expression.getLeft()), ...disjunctsOf(morph, expression.getRight())];
  }
  return [expression];
}

/** The edit that removes a property of an object literal with its separating comma, keeping the layout of the others. */
export function removal(morph: Morph, node: TsMorph.ObjectLiteralExpression, prop: TsMorph.ObjectLiteralElementLike): Edit {
  const props = node.getProperties();
  const i = props.indexOf(prop);
  const next = props[i + 1];
  const previous = props[i - 1];
  if (next) return { start: prop.getStart(), end: next.getStart(), text: "" };
  if (previous) return { start: previous.getEnd(), end: prop.getEnd(), text: "" };
  const after = prop.getNextSibling();
  return { start: prop.getStart(), end: after?.getKind() === morph.SyntaxKind.CommaToken ? after.getEnd() : prop.getEnd(), text: "" };
}
