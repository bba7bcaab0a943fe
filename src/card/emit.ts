import { readFileSync } from "node:fs";
import type { TemplateRenderer } from "../emit/templates.js";
import { CodegenError } from "../errors.js";
import type { ProtocolIR } from "../ir/types.js";
import { modeWarnings } from "../runtime/tasks/input-modes.js";
import { parseJson } from "../schema/load.js";
import { checkCard } from "./check.js";

/**
 * The project's agent card (a JSON file the user edits), checked against the version's AgentCard and
 * emitted as `card.ts`, a typed constant the server imports. Every bad or unknown field stops the generation
 * with its file and pointer (src/card/check.ts); a mode that is not a media type is a warning added to
 * `warnings` (it still works: a bare type is read as `type/*`).
 */
export function emitCard(ir: ProtocolIR, cardPath: string, displayPath: string, templates: TemplateRenderer, header: string, warnings: string[] = []): string {
  let text: string;
  try {
    text = readFileSync(cardPath, "utf8");
  } catch (error) {
    throw new CodegenError("agent card file not found", { file: displayPath, cause: error });
  }
  const card = parseJson(text, displayPath);
  checkCard(ir, card, displayPath);
  for (const warning of modeWarnings(card)) warnings.push(`${displayPath}: ${warning.replace(/^agent card /, "")}`);
  return templates.render("core/card.ts.hbs", { header, agentCardType: ir.facts.agentCardType, card: JSON.stringify(card, null, 2), source: displayPath.split(/[\\/]/).pop() });
}
