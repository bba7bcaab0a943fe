import type { ProtocolIR } from "../ir/types.js";
import { httpRoutesFor } from "./protocol.js";
import type { TemplateRenderer } from "./templates.js";

/** The web frameworks a server adapter is generated for. */
export const FRAMEWORKS = ["node", "express", "fastify", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** server/core.ts and one adapter per framework asked for (each imports only its own framework). */
export function emitServer(ir: ProtocolIR, templates: TemplateRenderer, header: string, frameworks: readonly Framework[] = FRAMEWORKS): Record<string, string> {
  const view = {
    header,
    specVersion: ir.specVersion,
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    /** The core definitions by role (the schema may name them otherwise than Message, Task, ...). */
    types: ir.core,
    hasExtendedCard: ir.profile.methods.extendedCard !== undefined,
    extendedCardMethod: ir.profile.methods.extendedCard ?? "",
    hasHttpRoutes: httpRoutesFor(ir) !== undefined,
    hasInputFields: ir.inputFields !== undefined,
    /** One error class per error of the version's table, for the executor to raise (TaskNotFoundError → -32001). */
    errors: ir.errors.map((e) => ({ name: e.name, code: e.code, message: e.defaultMessage ?? e.name.replace(/Error$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2"), description: e.description })),
  };
  const out: Record<string, string> = { "server/core.ts": templates.render("server/core.ts.hbs", view) };
  for (const name of FRAMEWORKS.filter((f) => frameworks.includes(f))) out[`server/${name}.ts`] = templates.render(`server/${name}.ts.hbs`, view);
  return out;
}
