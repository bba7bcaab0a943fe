import { createRequire } from "node:module";
import type { Ajv as AjvClass, Options as AjvOptions, ValidateFunction } from "ajv";
import { CodegenError, joinPointer } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "../ir/validator-schema.js";
import { bundledIR } from "../load/protocol.js";
import { toIssues, type RawValidationError } from "../runtime/validation.js";
import { isObject, type JsonObject } from "../schema/json.js";
import { bundledVersions } from "../schema/load.js";
import { closestName } from "../closest-name.js";
import { SchemaShapes } from "./shape.js";

const require = createRequire(import.meta.url);
// Loaded on first use (only with --card): a cold run need not load Ajv.
const loadAjv = () => (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;

/** One thing wrong with an agent card: where (a JSON pointer into the card) and what. */
export interface CardProblem {
  pointer: string;
  message: string;
  /** For an unknown field: the declared field it is likely a misspelling of. */
  suggestion?: string;
  /** For an unknown field: the other bundled versions whose card declares it there. */
  versions?: string[];
}

/** An agent card that is not a valid card of the version: every problem, and the conversion to run when it is another version's card. */
export class CardError extends CodegenError {
  readonly problems: CardProblem[];
  readonly specVersion: string;
  /** The bundled version the card seems to be written for, when that is not `specVersion`. */
  readonly cardVersion: string | undefined;

  constructor(problems: CardProblem[], specVersion: string, cardVersion: string | undefined, file: string, convertCommand: string | undefined) {
    const only = problems.length === 1 ? problems[0] : undefined;
    const hint = convertCommand ? `\nIt looks like an A2A ${cardVersion} card: convert it with \`${convertCommand}\`` : "";
    super(
      only
        ? `not a valid A2A ${specVersion} agent card: ${only.pointer || "/"}: ${only.message}${hint}`
        : `not a valid A2A ${specVersion} agent card, ${problems.length} problems:\n${problems.map((p) => `  at ${p.pointer || "/"}: ${p.message}`).join("\n")}${hint}`,
      { file, ...(only ? { pointer: only.pointer } : {}) },
    );
    this.problems = problems;
    this.specVersion = specVersion;
    this.cardVersion = cardVersion;
  }
}

/**
 * Checks a card as the compiler would check its generated `card.ts`, but at generate time and naming the
 * card file: every schema violation, and every field the version does not declare (a misspelling gets
 * the closest known field; a field of another version says which versions have it). Throws a CardError
 * listing all problems, with the `a2a-codegen card` command that converts it when it is another
 * version's card.
 */
export function checkCard(ir: ProtocolIR, card: unknown, displayPath: string): void {
  const problems = cardProblems(ir, card);
  if (problems.length === 0) return;
  const cardVersion = bundledVersions().includes(ir.specVersion) ? likelyVersion(card, ir.specVersion) : undefined;
  const command = cardVersion ? `a2a-codegen card --from ${cardVersion} --to ${ir.specVersion} ${displayPath}` : undefined;
  throw new CardError(problems, ir.specVersion, cardVersion, displayPath, command);
}

/** Every problem of a card under a version, in the order of their pointers. */
export function cardProblems(ir: ProtocolIR, card: unknown): CardProblem[] {
  const problems: CardProblem[] = [];
  const shapes = new SchemaShapes(ir);
  const cardSchema = shapes.definition(ir.facts.agentCardType);
  const unknown = cardSchema ? walkFields(shapes, card, cardSchema).unknown : [];
  const elsewhere = unknown.length > 0 ? otherVersionsKnowing(card, ir.specVersion, unknown) : new Map<string, string[]>();
  for (const field of unknown) {
    const versions = elsewhere.get(field.pointer) ?? [];
    const suggestion = closestName(field.name, field.known);
    let message = versions.length > 0 ? `"${field.name}" is a field of the A2A ${versionRanges(versions)} agent card, not of ${ir.specVersion}` : `unknown field "${field.name}"`;
    if (suggestion) message += `; did you mean "${suggestion}"?`;
    else if (versions.length === 0) message += `; the fields here are: ${field.known.join(", ")}`;
    problems.push({ pointer: field.pointer, message, ...(suggestion ? { suggestion } : {}), ...(versions.length > 0 ? { versions } : {}) });
  }
  for (const issue of validateCard(ir, card)) {
    const prefix = `${issue.pointer || "/"}: `;
    problems.push({ pointer: issue.pointer, message: issue.message.startsWith(prefix) ? issue.message.slice(prefix.length) : issue.message });
  }
  return problems.sort((a, b) => comparePointers(a.pointer, b.pointer));
}

export interface UnknownField {
  pointer: string;
  name: string;
  /** The fields the object declares. */
  known: string[];
}

/**
 * The fields of a value its schema does not declare, at every closed object (as in the generated types),
 * and the pointers of every field it does declare.
 */
export function walkFields(shapes: SchemaShapes, value: unknown, schema: JsonObject): { unknown: UnknownField[]; known: Set<string> } {
  const unknown: UnknownField[] = [];
  const known = new Set<string>();
  const walk = (node: unknown, raw: JsonObject, pointer: string, depth: number): void => {
    if (depth > 64) return;
    const { schema: resolved } = shapes.resolve(raw);
    const union = shapes.members(resolved);
    if (union) {
      // Into the member the value is; a value that is no member is the validator's to report.
      const member = isObject(node) ? shapes.member(union, node) : undefined;
      if (member?.fits) walk(node, member.schema, pointer, depth + 1);
      return;
    }
    if (Array.isArray(node)) {
      const items = shapes.items(resolved);
      if (items) node.forEach((item, i) => walk(item, items, joinPointer(pointer, i), depth + 1));
      return;
    }
    const shape = shapes.object(resolved);
    if (!shape || !isObject(node)) return;
    for (const [key, child] of Object.entries(node)) {
      const at = joinPointer(pointer, key);
      const property = shape.properties[key] ?? shape.values;
      if (property) {
        known.add(at);
        walk(child, property, at, depth + 1);
      } else if (shape.closed) {
        unknown.push({ pointer: at, name: key, known: Object.keys(shape.properties) });
      }
    }
  };
  walk(value, schema, "", 0);
  return { unknown, known };
}

/** Schema violations of a card (the generated validator's issues), every one of them. */
export function validateCard(ir: ProtocolIR, card: unknown): ReturnType<typeof toIssues> {
  const validate = cardValidator(ir);
  return validate(card) ? [] : toIssues((validate.errors ?? []) as RawValidationError[], card);
}

const validators = new WeakMap<ProtocolIR, ValidateFunction>();
function cardValidator(ir: ProtocolIR): ValidateFunction {
  let validate = validators.get(ir);
  if (!validate) {
    const ajv = new (loadAjv())({ ...AJV_OPTIONS });
    ajv.addSchema(validatorSchema(ir));
    validate = ajv.getSchema(`${SCHEMA_ID}#/definitions/${ir.facts.agentCardType}`);
    if (!validate) throw new Error(`the schema has no ${ir.facts.agentCardType}`);
    validators.set(ir, validate);
  }
  return validate;
}

/** The IR of each bundled version, built once per process (only when a card has unknown fields). */
const irs = new Map<string, ProtocolIR>();
function irOf(version: string): ProtocolIR {
  let ir = irs.get(version);
  if (!ir) {
    ir = bundledIR(version);
    irs.set(version, ir);
  }
  return ir;
}

function fieldsUnder(version: string, card: unknown): { unknown: UnknownField[]; known: Set<string> } {
  const ir = irOf(version);
  const shapes = new SchemaShapes(ir);
  const schema = shapes.definition(ir.facts.agentCardType);
  return schema ? walkFields(shapes, card, schema) : { unknown: [], known: new Set() };
}

/** For each unknown field, the other bundled versions whose card declares it at that place. */
function otherVersionsKnowing(card: unknown, version: string, unknown: UnknownField[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const other of bundledVersions()) {
    if (other === version) continue;
    const { known } = fieldsUnder(other, card);
    for (const field of unknown) if (known.has(field.pointer)) out.set(field.pointer, [...(out.get(field.pointer) ?? []), other]);
  }
  return out;
}

/**
 * The bundled version a card seems written for, when it fits another version better than `version`:
 * one where it is a valid card with no undeclared field (the newest such), else the newest with fewer
 * undeclared fields than under `version`.
 */
export function likelyVersion(card: unknown, version: string): string | undefined {
  const here = fieldsUnder(version, card).unknown.length;
  const scored = bundledVersions()
    .filter((v) => v !== version)
    .map((v) => ({ version: v, unknown: fieldsUnder(v, card).unknown.length }));
  const fewest = Math.min(...scored.map((s) => s.unknown));
  if (!(fewest <= here)) return undefined;
  const candidates = scored.filter((s) => s.unknown === fewest).reverse();
  const valid = fewest === 0 ? candidates.find((c) => validateCard(irOf(c.version), card).length === 0) : undefined;
  if (valid) return valid.version;
  return fewest < here ? candidates[0]?.version : undefined;
}

/** Versions as ranges of consecutive bundled versions: "0.1.0–0.3.0", "0.2.5, 0.3.0". */
export function versionRanges(versions: string[]): string {
  const all = bundledVersions();
  const indexes = versions.map((v) => all.indexOf(v)).filter((i) => i >= 0).sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < indexes.length; ) {
    let j = i;
    while (j + 1 < indexes.length && (indexes[j + 1] as number) === (indexes[j] as number) + 1) j++;
    const first = all[indexes[i] as number] as string;
    const last = all[indexes[j] as number] as string;
    ranges.push(j > i + 1 ? `${first}–${last}` : j === i + 1 ? `${first}, ${last}` : first);
    i = j + 1;
  }
  return ranges.join(", ");
}

function comparePointers(a: string, b: string): number {
  const pa = a.split("/");
  const pb = b.split("/");
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] as string;
    const y = pb[i] as string;
    if (x === y) continue;
    const nx = /^\d+$/.test(x) ? Number(x) : NaN;
    const ny = /^\d+$/.test(y) ? Number(y) : NaN;
    if (!Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
