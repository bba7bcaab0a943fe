import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { Ajv as AjvClass, Options as AjvOptions } from "ajv";
import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { toIssues, type RawValidationError } from "../runtime/validation.js";
import { parseJson } from "../schema/load.js";
import type { TemplateRenderer } from "./templates.js";
import { AJV_OPTIONS, SCHEMA_ID, validatorSchema } from "./validators.js";

const require = createRequire(import.meta.url);
const Ajv = (require("ajv") as { default: new (options: AjvOptions) => AjvClass }).default;

/**
 * The project's agent card (a JSON file the user edits), checked against the version's AgentCard and
 * emitted as `card.ts`, a typed constant the server imports. A bad field stops the generation with
 * its file and pointer.
 */
export function emitCard(ir: ProtocolIR, cardPath: string, displayPath: string, templates: TemplateRenderer, header: string): string {
  let text: string;
  try {
    text = readFileSync(cardPath, "utf8");
  } catch (error) {
    throw new CodegenError("agent card file not found", { file: displayPath, cause: error });
  }
  const card = parseJson(text, displayPath);
  const ajv = new Ajv({ ...AJV_OPTIONS });
  ajv.addSchema(validatorSchema(ir));
  const validate = ajv.getSchema(`${SCHEMA_ID}#/definitions/${ir.facts.agentCardType}`);
  if (!validate) throw new Error(`the schema has no ${ir.facts.agentCardType}`);
  if (!validate(card)) {
    const issues = toIssues((validate.errors ?? []) as RawValidationError[], card);
    const first = issues[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more: ${issues.slice(1, 4).map((i) => i.message).join("; ")})` : "";
    throw new CodegenError(`not a valid A2A ${ir.specVersion} agent card: ${first?.message ?? "invalid"}${more}`, {
      file: displayPath,
      pointer: first?.pointer ?? "",
    });
  }
  return templates.render("core/card.ts.hbs", { header, agentCardType: ir.facts.agentCardType, card: JSON.stringify(card, null, 2), source: displayPath.split(/[\\/]/).pop() });
}
