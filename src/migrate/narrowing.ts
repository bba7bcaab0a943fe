import type * as TsMorph from "ts-morph";
import type { Morph } from "./rewrite.js";
import type { WrappedMember } from "./rules.js";
import { conjuncts, exits, tagCheck } from "./syntax.js";

type Node = TsMorph.Node;

/** Which members a reference can be, from the tag checks of the `if`s around it. */
export function narrowed(morph: Morph, ref: Node, name: string, members: readonly WrappedMember[]): WrappedMember[] {
  const { Node: N } = morph;
  let left = [...members];
  let child: Node = ref;
  for (let node = ref.getParent(); node; child = node, node = node.getParent()) {
    if (N.isBlock(node) || N.isSourceFile(node)) {
      // `if (r.kind === "task") { …; return; }` before it: r is not a task here.
      const statements = node.getStatements();
      for (const previous of statements.slice(0, statements.indexOf(child as TsMorph.Statement))) {
        if (!N.isIfStatement(previous) || previous.getElseStatement() || !exits(morph, previous.getThenStatement())) continue;
        const check = tagCheck(morph, previous.getExpression(), name);
        const member = check && members.find((m) => m.tags[check.field] === check.value);
        if (check && member) left = check.negated ? left.filter((m) => m === member) : left.filter((m) => m !== member);
      }
      continue;
    }
    if (N.isBinaryExpression(node) && node.getOperatorToken().getKind() === morph.SyntaxKind.AmpersandAmpersandToken && child === node.getRight()) {
      for (const test of conjuncts(morph, node.getLeft())) {
        const check = tagCheck(morph, test, name);
        const member = check && members.find((m) => m.tags[check.field] === check.value);
        if (check && member) left = check.negated ? left.filter((m) => m !== member) : left.filter((m) => m === member);
      }
      continue;
    }
    if (N.isCaseClause(node) || N.isDefaultClause(node)) {
      // `switch (r.kind) { case "task": … }`: this case's member; `default:` the members no case names.
      const sw = node.getParent()?.getParent();
      const tag = sw && N.isSwitchStatement(sw) ? sw.getExpression() : undefined;
      if (!tag || !N.isPropertyAccessExpression(tag) || tag.getExpression().getText() !== name) continue;
      const field = tag.getName();
      const valueOf = (clause: Node) => (N.isCaseClause(clause) && N.isStringLiteral(clause.getExpression()) ? (clause.getExpression() as TsMorph.StringLiteral).getLiteralValue() : undefined);
      if (N.isCaseClause(node)) left = left.filter((m) => m.tags[field] === valueOf(node));
      else {
        const block = node.getParentOrThrow();
        const named = new Set((N.isCaseBlock(block) ? block.getClauses() : []).map(valueOf));
        left = left.filter((m) => !named.has(m.tags[field] as string));
      }
      continue;
    }
    if (!N.isIfStatement(node) && !N.isConditionalExpression(node)) continue;
    const condition = N.isIfStatement(node) ? node.getExpression() : node.getCondition();
    if (child === condition) continue;
    const inThen = N.isIfStatement(node) ? child === node.getThenStatement() : child === node.getWhenTrue();
    // `if (a && b)`: each conjunct holds in the then-branch; the else-branch knows only a lone test failed.
    const tests = conjuncts(morph, condition);
    if (!inThen && tests.length > 1) continue;
    for (const test of tests) {
      const check = tagCheck(morph, test, name);
      const member = check && members.find((m) => m.tags[check.field] === check.value);
      if (!check || !member) continue;
      const isMember = inThen !== check.negated;
      left = isMember ? left.filter((m) => m === member) : left.filter((m) => m !== member);
    }
  }
  return left;
}
