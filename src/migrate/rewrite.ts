import type * as TsMorph from "ts-morph";
import type { Condition, JsonValue, Transform } from "../runtime/compat/converter.js";
import type { MigrationRules, ObjectRule, UnionRule, WrappedMember } from "./rules.js";
import { applyEdits, bindingOf, removal, callOfBinding, disjunctsOf, isEquality, isPlainReference, movePath, presence, propertyName } from "./syntax.js";

import { narrowed } from "./narrowing.js";
import { kindCheck, parenthesized, switchOnTag, tagTest } from "./kind-checks.js";

export { applyEdits, movePath } from "./syntax.js";

/** The ts-morph module, loaded by the migrate command only (`await import("ts-morph")`). */
export type Morph = typeof TsMorph;
type Node = TsMorph.Node;
type Type = TsMorph.Type;

/** A replacement of a span of a file's original text. */
export interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** What `migrate` could not change: where, the old and the new shape, and what to do. */
export interface Unchanged {
  readonly file: string;
  readonly line: number;
  readonly old: string;
  readonly new: string;
  readonly hint: string;
}

export interface FileRewrite {
  readonly path: string;
  readonly before: string;
  readonly after: string;
  readonly unchanged: Unchanged[];
}

/**
 * Where a declaration comes from: the spec version of the generated folder holding the file (its
 * `a2a-codegen.manifest.json`), or undefined for any other file.
 */
export type GeneratedVersionOf = (filePath: string) => string | undefined;

/**
 * Rewrites the protocol shapes of one file from `rules.from` to `rules.to`, with the type checker telling
 * which literals, strings and names are protocol values of `rules.from`. Only the smallest nodes that
 * change are replaced (a property, a string literal, a name): the rest of the file keeps its bytes.
 */
export function rewriteFile(morph: Morph, file: TsMorph.SourceFile, rules: MigrationRules, versionOf: GeneratedVersionOf): FileRewrite {
  return new FileRewriter(morph, file, rules, versionOf).run();
}

/** The rewrite of one file: the walk, and the state the rule families (kind-checks.ts) share. */
export class FileRewriter {
  private readonly edits: Edit[] = [];
  /** Switches on a tag rewritten to `switch (true)` (their `x.kind` is not reported). */
  readonly switches = new Set<Node>();
  /** Guard calls rewritten to presence tests. */
  private readonly guardsRewritten: TsMorph.CallExpression[] = [];
  private readonly unchanged: Unchanged[] = [];
  readonly K: typeof TsMorph.SyntaxKind;

  constructor(
    readonly morph: Morph,
    private readonly file: TsMorph.SourceFile,
    readonly rules: MigrationRules,
    private readonly versionOf: GeneratedVersionOf,
  ) {
    this.K = morph.SyntaxKind;
  }

  run(): FileRewrite {
    const { Node } = this.morph;
    this.file.forEachDescendant((node) => {
      if (Node.isObjectLiteralExpression(node)) this.objectLiteral(node);
      else if (Node.isStringLiteral(node) || Node.isNoSubstitutionTemplateLiteral(node)) this.stringLiteral(node);
      else if (Node.isBinaryExpression(node)) kindCheck(this, node);
      else if (Node.isSwitchStatement(node)) switchOnTag(this, node);
      else if (Node.isIdentifier(node)) this.identifier(node);
      else if (Node.isCallExpression(node)) {
        this.wrappedCall(node);
        this.guardCall(node);
      }
      if (Node.isPropertyAccessExpression(node)) this.propertyAccess(node);
    });
    this.unusedGuardImports();
    const before = this.file.getFullText();
    return { path: this.file.getFilePath(), before, after: applyEdits(before, this.edits), unchanged: this.unchanged };
  }

  // --- which protocol type -----------------------------------------------------------------------

  /** The `from` definition a type is (by its alias or interface name, declared in a generated folder of `from`). */
  definitionOf(type: Type | undefined): string | undefined {
    if (!type) return undefined;
    for (const t of [type, type.getNonNullableType()]) {
      const alias = t.getAliasSymbol();
      if (alias && this.isFrom(alias)) return alias.getName();
      const symbol = t.getSymbol();
      if (symbol && !alias && this.isFrom(symbol) && (t.isInterface() || t.isObject())) return symbol.getName();
      // Members of one union, narrowed (`RawPart | UrlPart`): that union.
      if (t.isUnion()) {
        const unions = new Set(t.getUnionTypes().map((u) => this.definitionOf(u)).map((d) => (d === undefined ? undefined : this.rules.unions.has(d) ? d : this.rules.unionOf.get(d))));
        const [only] = unions;
        if (unions.size === 1 && only !== undefined) return only;
      }
    }
    return undefined;
  }

  private isFrom(symbol: TsMorph.Symbol): boolean {
    const resolved = symbol.isAlias() ? (symbol.getAliasedSymbol() ?? symbol) : symbol;
    return resolved.getDeclarations().some((d) => this.versionOf(d.getSourceFile().getFilePath()) === this.rules.from);
  }

  // --- object literals ---------------------------------------------------------------------------

  private objectLiteral(node: TsMorph.ObjectLiteralExpression): void {
    const definition = this.definitionOf(node.getContextualType());
    if (definition === undefined) return;
    const union = this.rules.unions.get(definition) ?? this.rules.unions.get(this.rules.unionOf.get(definition) ?? "");
    if (union) {
      const member = union.members.find((m) => m.when.every((c) => this.holds(node, c)));
      if (!member) {
        // Already in the new shape (a second run), or not told apart by literal values: reported unless it has none of the old tags.
        if (this.oldTagged(node, union)) {
          this.report(node, `${union.source} literal`, union.members.map((m) => m.rule.target).join(" | "), "its tag is not a literal value here: rewrite it as the member it is");
        }
        return;
      }
      this.applyObject(node, member.rule);
      return;
    }
    const rule = this.rules.objects.get(definition);
    if (rule) this.applyObject(node, rule);
  }

  private oldTagged(node: TsMorph.ObjectLiteralExpression, union: UnionRule): boolean {
    const paths = new Set(union.members.flatMap((m) => m.when.filter((c) => "equals" in c).map((c) => c.path)));
    return [...paths].some((p) => this.property(node, p) !== undefined);
  }

  /** A literal property at a dotted path (through nested object literals). */
  private property(node: TsMorph.ObjectLiteralExpression, path: string): TsMorph.ObjectLiteralElementLike | undefined {
    const [head, ...rest] = path.split(".");
    const prop = node.getProperty(head as string);
    if (!prop || rest.length === 0) return prop;
    const init = this.morph.Node.isPropertyAssignment(prop) ? prop.getInitializer() : undefined;
    return init && this.morph.Node.isObjectLiteralExpression(init) ? this.property(init, rest.join(".")) : undefined;
  }

  private holds(node: TsMorph.ObjectLiteralExpression, condition: Condition): boolean {
    const prop = this.property(node, condition.path);
    if (!prop) return false;
    if ("present" in condition) return true;
    const value = this.literalValue(prop);
    return value !== undefined && value === condition.equals;
  }

  private literalValue(prop: TsMorph.ObjectLiteralElementLike): JsonValue | undefined {
    const { Node } = this.morph;
    if (!Node.isPropertyAssignment(prop)) return undefined;
    const init = prop.getInitializer();
    if (init && (Node.isStringLiteral(init) || Node.isNoSubstitutionTemplateLiteral(init))) return init.getLiteralValue();
    if (init && Node.isAsExpression(init)) {
      const inner = init.getExpression();
      if (Node.isStringLiteral(inner)) return inner.getLiteralValue();
    }
    return undefined;
  }

  private applyObject(node: TsMorph.ObjectLiteralExpression, rule: ObjectRule): void {
    const { Node } = this.morph;
    const props = node.getProperties();
    for (const field of rule.drop) {
      const prop = node.getProperty(field);
      if (prop) this.remove(node, prop);
    }
    // Fields moved up out of a nested object (`file: { bytes, mimeType }` → `raw, mediaType`), grouped by that object.
    const nested = new Map<string, Array<{ from: string; to: string; transform?: Transform }>>();
    for (const r of rule.renames) {
      if (r.from.includes(".")) {
        const top = r.from.split(".")[0] as string;
        nested.set(top, [...(nested.get(top) ?? []), r]);
        continue;
      }
      if (r.to.includes(".")) continue; // moved into a nested object: below

      const prop = node.getProperty(r.from);
      if (prop) this.renameProperty(prop, r.to, r.transform, rule);
    }
    for (const [top, renames] of nested) {
      const prop = node.getProperty(top);
      if (!prop) continue;
      const init = Node.isPropertyAssignment(prop) ? prop.getInitializer() : undefined;
      if (!init || !Node.isObjectLiteralExpression(init)) {
        this.report(prop, `${rule.source}.${top}`, renames.map((r) => `${rule.target}.${r.to}`).join(", "), `spell its fields out: ${renames.map((r) => `${r.to}: …${r.from.slice(top.length)}`).join(", ")}`);
        continue;
      }
      const parts: string[] = [];
      let ok = true;
      for (const inner of init.getProperties()) {
        const name = propertyName(this.morph, inner);
        const r = renames.find((x) => x.from === `${top}.${name}`);
        if (!r || name === undefined) {
          ok = false;
          this.report(inner, `${rule.source}.${top}.${name ?? "…"}`, `(no ${rule.target} field)`, `${rule.target} has no such field: drop it or keep it in metadata`);
          continue;
        }
        parts.push(`${r.to}: ${this.valueText(inner)}`);
      }
      if (ok) this.edit(prop.getStart(), prop.getEnd(), parts.join(", "));
    }
    // Fields moved down into a nested object (`url, mediaType` → `file: { uri, mimeType }`), grouped by that object.
    const nests = new Map<string, Array<{ prop: TsMorph.ObjectLiteralElementLike; field: string; transform?: Transform }>>();
    for (const r of rule.renames) {
      const prop = r.to.includes(".") && !r.from.includes(".") ? node.getProperty(r.from) : undefined;
      if (!prop) continue;
      const [top, ...rest] = r.to.split(".");
      nests.set(top as string, [...(nests.get(top as string) ?? []), { prop, field: rest.join("."), ...(r.transform ? { transform: r.transform } : {}) }]);
    }
    for (const [top, moved] of nests) {
      const convertible = moved.every((m) => m.transform === undefined || m.transform.op === "pattern") && node.getProperty(top) === undefined;
      if (!convertible) {
        for (const m of moved) this.report(m.prop, `${rule.source}.${propertyName(this.morph, m.prop) ?? ""}`, `${rule.target}.${top}.${m.field}`, `move it into ${top}`);
        continue;
      }
      const ordered = [...moved].sort((a, b) => a.prop.getStart() - b.prop.getStart());
      const first = ordered[0] as (typeof ordered)[number];
      const last = ordered[ordered.length - 1] as (typeof ordered)[number];
      const text = `${top}: { ${ordered.map((m) => `${m.field}: ${this.valueText(m.prop)}`).join(", ")} }`;
      const all = node.getProperties();
      const contiguous = all.indexOf(last.prop) - all.indexOf(first.prop) === ordered.length - 1;
      if (contiguous) this.edit(first.prop.getStart(), last.prop.getEnd(), text);
      else {
        this.edit(first.prop.getStart(), first.prop.getEnd(), text);
        for (const m of ordered.slice(1)) this.remove(node, m.prop);
      }
    }
    for (const g of rule.gone) {
      const prop = node.getProperty(g.field);
      if (prop && !rule.drop.includes(g.field)) this.report(prop, `${rule.source}.${g.field}`, `(no ${rule.target} field)`, g.note);
    }
    for (const c of rule.computed) {
      if (!node.getProperty(c.field) && !node.getProperties().some((p) => this.morph.Node.isSpreadAssignment(p))) this.report(node, `${rule.source} without ${c.field}`, `${rule.target} with ${c.field}`, c.note);
    }
    const missing = Object.entries(rule.set).filter(([field]) => !node.getProperty(field));
    if (missing.length > 0) {
      const first = props[0];
      const text = missing.map(([field, value]) => `${field}: ${JSON.stringify(value)}`).join(", ");
      // On a line of its own when the properties are one per line.
      const full = this.file.getFullText();
      const lineStart = first ? full.lastIndexOf("\n", first.getStart() - 1) + 1 : 0;
      const indent = first ? full.slice(lineStart, first.getStart()) : "";
      if (first && /^[ \t]*$/.test(indent)) this.edit(first.getStart(), first.getStart(), missing.map(([field, value]) => `${field}: ${JSON.stringify(value)},\n${indent}`).join(""));
      else if (first) this.edit(first.getStart(), first.getStart(), `${text}, `);
      else this.edit(node.getStart() + 1, node.getStart() + 1, ` ${text} `);
    }
  }

  private valueText(prop: TsMorph.ObjectLiteralElementLike): string {
    const { Node } = this.morph;
    if (Node.isPropertyAssignment(prop)) return prop.getInitializerOrThrow().getText();
    if (Node.isShorthandPropertyAssignment(prop)) return prop.getName();
    return prop.getText();
  }

  private renameProperty(prop: TsMorph.ObjectLiteralElementLike, to: string, transform: Transform | undefined, rule: ObjectRule): void {
    const { Node } = this.morph;
    const value = this.valueText(prop);
    let converted = value;
    if (transform?.op === "not") {
      converted = value === "true" ? "false" : value === "false" ? "true" : `!(${value})`;
    } else if (transform?.op === "first" || transform?.op === "list") {
      const init = Node.isPropertyAssignment(prop) ? prop.getInitializer() : undefined;
      if (transform.op === "first" && init && Node.isArrayLiteralExpression(init) && init.getElements().length === 1) converted = (init.getElements()[0] as Node).getText();
      else if (transform.op === "list") converted = `[${value}]`;
      else {
        this.report(prop, `${rule.source}.${propertyName(this.morph, prop) ?? ""}: a list`, `${rule.target}.${to}: one value`, `${rule.target}.${to} holds one value: pick it`);
        return;
      }
    } else if (transform !== undefined && transform.op !== "pattern") {
      this.report(prop, `${rule.source}.${propertyName(this.morph, prop) ?? ""}`, `${rule.target}.${to}`, `rename it to ${to} and convert its value (${transform.op})`);
      return;
    }
    if (Node.isPropertyAssignment(prop) && converted === value) {
      const name = prop.getNameNode();
      this.edit(name.getStart(), name.getEnd(), to);
    } else {
      this.edit(prop.getStart(), prop.getEnd(), `${to}: ${converted}`);
    }
  }

  /** Removes a property with its separating comma, keeping the layout of the others. */
  private remove(node: TsMorph.ObjectLiteralExpression, prop: TsMorph.ObjectLiteralElementLike): void {
    this.edits.push(removal(this.morph, node, prop));
  }

  // --- strings: enum values, protocol constants, import paths ------------------------------------

  private stringLiteral(node: TsMorph.StringLiteral | TsMorph.NoSubstitutionTemplateLiteral): void {
    const { Node } = this.morph;
    const value = node.getLiteralValue();
    const parent = node.getParent();
    if (parent && (Node.isImportDeclaration(parent) || Node.isExportDeclaration(parent) || (Node.isCallExpression(parent) && parent.getExpression().getKind() === this.K.ImportKeyword))) {
      const moved = movePath(value, this.rules.from, this.rules.to);
      // Only a path into a generated folder of `from` (not `compat/a2a-0.3.0/` inside a 1.0.1 output).
      const target = Node.isImportDeclaration(parent) || Node.isExportDeclaration(parent) ? parent.getModuleSpecifierSourceFile() : undefined;
      const version = target ? this.versionOf(target.getFilePath()) : this.rules.from;
      if (moved !== value && version === this.rules.from) this.replaceString(node, moved);
      return;
    }
    if (parent && Node.isLiteralTypeNode(parent)) return;
    const fact = this.rules.strings.get(value);
    if (fact !== undefined) {
      this.replaceString(node, fact);
      return;
    }
    const key = this.enumKey(node);
    if (key === undefined) return;
    const rule = this.rules.enums.get(key);
    if (!rule) return;
    const next = rule.values[value];
    if (next !== undefined) this.replaceString(node, next);
    else if (rule.gone.includes(value)) this.report(node, `${rule.source} "${value}"`, `(no ${rule.target} value)`, `${this.rules.to} has no such value: use another one`);
  }

  /** The enumeration a string literal is a value of: its contextual type, the other side of a comparison, or the switch it is a case of. */
  private enumKey(node: Node): string | undefined {
    const { Node: N } = this.morph;
    const parent = node.getParent();
    let other: TsMorph.Expression | undefined;
    if (parent && N.isBinaryExpression(parent) && isEquality(parent.getOperatorToken().getKind(), this.K)) {
      other = parent.getLeft() === node ? parent.getRight() : parent.getLeft();
    } else if (parent && N.isCaseClause(parent)) {
      const sw = parent.getParentOrThrow().getParentOrThrow();
      if (N.isSwitchStatement(sw)) other = sw.getExpression();
    }
    if (other) return this.enumKeyOfType(other.getType()) ?? this.enumKeyOfField(other);
    if (parent && N.isPropertyAssignment(parent)) {
      const literal = parent.getParent();
      const owner = N.isObjectLiteralExpression(literal) ? this.definitionOf(literal.getContextualType()) : undefined;
      if (owner !== undefined && this.rules.enums.has(`${owner}.${parent.getName()}`)) return `${owner}.${parent.getName()}`;
    }
    return N.isExpression(node) ? this.enumKeyOfType(node.getContextualType()) : undefined;
  }

  private enumKeyOfType(type: Type | undefined): string | undefined {
    const name = this.definitionOf(type);
    return name !== undefined && this.rules.enums.has(name) ? name : undefined;
  }

  /** `message.role` where the enumeration is inline in its object (0.3 Message.role): `Message.role`. */
  private enumKeyOfField(expression: Node): string | undefined {
    const { Node: N } = this.morph;
    if (!N.isPropertyAccessExpression(expression)) return undefined;
    // The field's declared type (a narrowed `state` is a union of literals without its alias).
    for (const d of expression.getNameNode().getSymbol()?.getDeclarations() ?? []) {
      const declared = this.enumKeyOfType(d.getType());
      if (declared !== undefined) return declared;
    }
    const owner = this.definitionOf(expression.getExpression().getType());
    const key = owner === undefined ? undefined : `${owner}.${expression.getName()}`;
    return key !== undefined && this.rules.enums.has(key) ? key : undefined;
  }

  private replaceString(node: Node, value: string): void {
    const text = node.getText();
    const quote = text[0] ?? '"';
    this.edit(node.getStart(), node.getEnd(), `${quote}${value.replace(/\\/g, "\\\\").replace(new RegExp(quote, "g"), `\\${quote}`)}${quote}`);
  }

  // --- reads of renamed fields (`part.file.name` → `part.filename`, `config.blocking`) -----------

  private propertyAccess(node: TsMorph.PropertyAccessExpression): void {
    const { Node: N } = this.morph;
    const subject = node.getExpression();
    // The other way: `r.task.status` on a result `to` returns bare → `r.status`.
    const unwrapped = this.wrappedMembersOf(subject, this.rules.unwrapped);
    if (unwrapped?.some((m) => m.property === node.getName())) {
      this.edit(subject.getEnd(), node.getEnd(), "");
      return;
    }
    const definition = this.definitionOf(subject.getType());
    if (definition === undefined) return;
    const name = node.getName();
    const unionName = this.rules.unions.has(definition) ? definition : this.rules.unionOf.get(definition);
    const union = unionName === undefined ? undefined : this.rules.unions.get(unionName);
    const rules = union ? union.members.map((m) => m.rule) : [this.rules.objects.get(definition)].filter((r): r is ObjectRule => r !== undefined);
    if (rules.length === 0) return;
    const parent = node.getParent();
    // A field of a nested object the new version carries at the top (`file.name` → `filename`).
    if (parent && N.isPropertyAccessExpression(parent) && parent.getExpression() === node) {
      const path = `${name}.${parent.getName()}`;
      const targets = new Set(rules.flatMap((r) => r.renames.filter((x) => x.from === path && !x.to.includes(".")).map((x) => x.to)));
      if (targets.size === 1) {
        this.edit(node.getNameNode().getStart(), parent.getEnd(), [...targets][0] as string);
        return;
      }
    }
    const renames = rules.flatMap((r) => r.renames.filter((x) => x.from === name));
    const targets = new Set(renames.map((x) => x.to));
    if (renames.length > 0 && targets.size === 1) {
      const transform = renames[0]?.transform;
      if (transform === undefined || transform.op === "pattern") this.edit(node.getNameNode().getStart(), node.getNameNode().getEnd(), renames[0]?.to ?? name);
      else this.report(node, `${definition}.${name}`, `${rules[0]?.target ?? definition}.${renames[0]?.to ?? name}`, `renamed, and its value converts (${transform.op}): rewrite this use by hand`);
      return;
    }
    const gone = rules.flatMap((r) => r.gone.filter((g) => g.field === name));
    if (gone.length > 0 && gone.length === rules.length) {
      this.report(node, `${definition}.${name}`, `(no ${rules[0]?.target ?? definition} field)`, (gone[0] as { note: string }).note);
      return;
    }
    const tag = rules.some((r) => r.drop.includes(name));
    if (tag && !(parent && (N.isBinaryExpression(parent) || this.switches.has(parent))) && !this.wrappedMembersOf(subject)) {
      this.report(node, `${definition}.${name}`, `(no ${rules[0]?.target ?? definition} ${name})`, `${this.rules.to} has no ${name} tag: test which member it is by the field it has`);
    }
  }

  // --- renamed types, guards and client methods --------------------------------------------------

  private identifier(node: TsMorph.Identifier): void {
    const { Node: N } = this.morph;
    const name = node.getText();
    const parent = node.getParent();
    const method = this.rules.methods.get(name);
    const type = this.rules.types.get(name);
    const choices = this.rules.ambiguous.get(name);
    if (choices && !(parent && N.isImportSpecifier(parent)) && !(parent && N.isPropertyAccessExpression(parent) && parent.getNameNode() === node)) {
      const symbol = node.getSymbol();
      if (symbol && this.isFrom(symbol)) this.report(node, name, choices.join(" or "), `${this.rules.to} has one type per method here: use the one of the method it is for`);
      return;
    }
    if (method === undefined && type === undefined) return;
    // `import { X as Y }`: only the imported name changes.
    if (parent && N.isImportSpecifier(parent) && parent.getAliasNode() === node) return;
    const symbol = node.getSymbol();
    if (!symbol || !this.isFrom(symbol)) return;
    if (method !== undefined && parent && (N.isPropertyAccessExpression(parent) || N.isMethodDeclaration(parent)) && !N.isImportSpecifier(parent)) {
      this.edit(node.getStart(), node.getEnd(), method);
    } else if (type !== undefined) {
      this.edit(node.getStart(), node.getEnd(), type);
    }
  }

  // --- guards of members the new version does not have (`isFilePart(p)` → `"raw" in p || "url" in p`) ---

  private guardCall(node: TsMorph.CallExpression): void {
    const { Node: N } = this.morph;
    const callee = node.getExpression();
    const guard = N.isIdentifier(callee) ? this.rules.guards.get(callee.getText()) : undefined;
    const [argument, ...rest] = node.getArguments();
    if (!guard || !argument || rest.length > 0) return;
    const symbol = (callee as TsMorph.Identifier).getSymbol();
    if (!symbol || !this.isFrom(symbol)) return;
    const test = tagTest(this, argument, guard.field, guard.value);
    if (test === undefined) {
      this.report(node, `${callee.getText()}(…)`, `a test of the field ${this.rules.to}'s member has`, `${this.rules.to} has no ${guard.definition}: test which field the value has`);
      return;
    }
    this.guardsRewritten.push(node);
    this.edit(node.getStart(), node.getEnd(), parenthesized(this, node, `(${test})`));
  }

  /** Imports of guards every call of which was rewritten: removed (the new version does not export them). */
  private unusedGuardImports(): void {
    const { Node: N } = this.morph;
    for (const declaration of this.file.getImportDeclarations()) {
      const named = declaration.getNamedImports();
      const unused = named.filter((specifier) => {
        const local = (specifier.getAliasNode() ?? specifier.getNameNode()).getText();
        if (!this.rules.guards.has(specifier.getName())) return false;
        const uses = this.file.getDescendantsOfKind(this.K.Identifier).filter((id) => id.getText() === local && !N.isImportSpecifier(id.getParent()));
        return uses.length > 0 && uses.every((id) => this.guardsRewritten.some((call) => call.getExpression() === id));
      });
      if (unused.length === 0) continue;
      if (unused.length === named.length && !declaration.getDefaultImport() && !declaration.getNamespaceImport()) {
        const end = declaration.getEnd();
        this.edit(declaration.getStart(), this.file.getFullText()[end] === "\n" ? end + 1 : end, "");
        continue;
      }
      for (const specifier of unused) {
        const i = named.indexOf(specifier);
        const next = named[i + 1];
        const previous = named[i - 1];
        if (next) this.edit(specifier.getStart(), next.getStart(), "");
        else if (previous) this.edit(previous.getEnd(), specifier.getEnd(), "");
      }
    }
  }

  // --- wrapped results (`{ task }`) --------------------------------------------------------------

  /** `await client.sendMessage(…)` / `for await (const e of client.sendStreamingMessage(…))`: its variable's uses get the wrapper. */
  private wrappedCall(node: TsMorph.CallExpression): void {
    const members = this.wrappedCallMembers(node);
    if (!members) return;
    const variable = bindingOf(this.morph, node);
    if (!variable) {
      this.report(node, `${node.getExpression().getText()}(…): ${members.map((m) => m.definition).join(" | ")}`, members.map((m) => `{ ${m.property} }`).join(" | "), `the result is wrapped by what it is: read it as ${members.map((m) => `result.${m.property}`).join(" or ")}`);
      return;
    }
    for (const ref of this.referencesOf(variable)) {
      const parent = ref.getParent();
      // Passed to the generated code itself (`A2AClient.unwrap(result)`), which takes either shape.
      if (parent && this.morph.Node.isCallExpression(parent) && parent.getArguments().includes(ref)) {
        const callee = parent.getExpression();
        const symbol = (this.morph.Node.isPropertyAccessExpression(callee) ? callee.getNameNode() : callee).getSymbol();
        if (symbol && this.isFrom(symbol)) continue;
      }
      if (!parent || !this.morph.Node.isPropertyAccessExpression(parent) || parent.getExpression() !== ref) {
        this.report(ref, `${variable.getText()}: ${members.map((m) => m.definition).join(" | ")}`, members.map((m) => `{ ${m.property} }`).join(" | "), `unwrap it where it is used: ${members.map((m) => `${variable.getText()}.${m.property}`).join(" or ")}`);
        continue;
      }
      const field = parent.getName();
      const holder = parent.getParent();
      if (members.some((m) => m.tags[field] !== undefined) && holder && (this.morph.Node.isBinaryExpression(holder) || this.morph.Node.isSwitchStatement(holder))) continue; // the tag check itself
      const left = narrowed(this.morph, ref, variable.getText(), members);
      if (left.length === 1) this.edit(ref.getEnd(), ref.getEnd(), `.${(left[0] as WrappedMember).property}`);
      else this.report(parent, `${variable.getText()}.${field}`, left.map((m) => `${variable.getText()}.${m.property}.${field}`).join(" or "), `test which it is first (${members.map((m) => `"${m.property}" in ${variable.getText()}`).join(", ")})`);
    }
  }

  /** The uses of a variable in its file (the identifiers naming the same symbol, its declaration left out). */
  private referencesOf(variable: TsMorph.Identifier): TsMorph.Identifier[] {
    const symbol = variable.getSymbol();
    if (!symbol) return [];
    const scope = variable.getFirstAncestor((n) => this.morph.Node.isFunctionLikeDeclaration(n) || this.morph.Node.isSourceFile(n)) ?? this.file;
    return scope
      .getDescendantsOfKind(this.K.Identifier)
      .filter((id) => id !== variable && id.getText() === variable.getText() && id.getSymbol() === symbol);
  }

  private wrappedCallMembers(node: TsMorph.CallExpression, map = this.rules.wrapped): readonly WrappedMember[] | undefined {
    const { Node: N } = this.morph;
    const callee = node.getExpression();
    if (!N.isPropertyAccessExpression(callee)) return undefined;
    const members = map.get(callee.getName());
    if (!members) return undefined;
    const symbol = callee.getNameNode().getSymbol();
    return symbol && this.isFrom(symbol) ? members : undefined;
  }

  /** The wrapped result a subject is: a variable bound to a wrapped call. */
  wrappedMembersOf(subject: Node, map = this.rules.wrapped): readonly WrappedMember[] | undefined {
    const { Node: N } = this.morph;
    if (!N.isIdentifier(subject) || map.size === 0) return undefined;
    for (const d of subject.getSymbol()?.getDeclarations() ?? []) {
      if (!N.isVariableDeclaration(d)) continue;
      const call = callOfBinding(this.morph, d);
      const members = call ? this.wrappedCallMembers(call, map) : undefined;
      if (members) return members;
    }
    return undefined;
  }

  // --- edits and reports -------------------------------------------------------------------------

  edit(start: number, end: number, text: string): void {
    this.edits.push({ start, end, text });
  }

  report(node: Node, old: string, next: string, hint: string): void {
    this.unchanged.push({ file: this.file.getFilePath(), line: node.getStartLineNumber(), old, new: next, hint });
  }
}
