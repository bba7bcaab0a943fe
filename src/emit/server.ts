import { pushConfigDefinition } from "../ir/profile.js";
import type { ProtocolIR } from "../ir/types.js";
import { errorClasses } from "./error-classes.js";
import { SHAPES_BY_VERSION } from "./grpc.js";
import { httpRoutesFor } from "./protocol.js";
import type { TemplateRenderer } from "./templates.js";

import { FRAMEWORKS, type Framework } from "../options/vocabularies.js";

export { FRAMEWORKS, type Framework };

/** server/core.ts and one adapter per framework asked for (each imports only its own framework). */
export function emitServer(
  ir: ProtocolIR,
  templates: TemplateRenderer,
  header: string,
  frameworks: readonly Framework[] = FRAMEWORKS,
  /** A second version served too (--compat): its version and the folder of its files (compat/emit.ts). */
  compat?: {
    version: string;
    folder: string;
    /** Whether the project's card is emitted in the compat shape too (compat/…/card.ts). */
    card: boolean;
    /** Whether the compat version has HTTP+JSON routes (its proto's google.api.http rules) and wire shapes of its own. */
    httpRoutes?: boolean;
    wireShapes?: boolean;
    /** Whether its gRPC binding is generated too (compat/…/grpc.ts; --transports grpc). */
    grpc?: boolean;
  },
  /** --telemetry: the core passes OpenTelemetry's hooks (runtime/telemetry/server.ts). */
  telemetry = false,
): Record<string, string> {
  const view = {
    header,
    specVersion: ir.specVersion,
    wellKnownAgentCardPath: ir.facts.wellKnownAgentCardPath,
    /** The core definitions by role (the schema may name them otherwise than Message, Task, ...). */
    types: ir.core,
    /** The model a push config store keeps (PushNotificationConfig, 1.0's TaskPushNotificationConfig); absent: JSON objects. */
    pushConfigModel: ((name) => (name !== undefined ? `Models.${name}` : undefined))(pushConfigDefinition(ir.profile)),
    hasExtendedCard: ir.profile.methods.extendedCard !== undefined,
    extendedCardMethod: ir.profile.methods.extendedCard ?? "",
    hasHttpRoutes: httpRoutesFor(ir) !== undefined,
    hasWireShapes: httpRoutesFor(ir) !== undefined && SHAPES_BY_VERSION[ir.specVersion] !== undefined,
    compat,
    customMethods: customMethodNames(ir),
    hasInputFields: ir.inputFields !== undefined,
    /** One error class per error of the version's table, for the executor to raise (A2ATaskNotFoundError → -32001), named as the client's. */
    errors: errorClasses(ir),
    telemetry,
    /** Whether an option of a feature not generated (telemetry, compat) is there to refuse (runtime/http/server.ts `withoutUngenerated`). */
    refusesUngenerated: !telemetry || compat === undefined,
  };
  const out: Record<string, string> = { "server/core.ts": templates.render("server/core.ts.hbs", view) };
  for (const name of FRAMEWORKS.filter((f) => frameworks.includes(f))) out[`server/${name}.ts`] = templates.render(`server/${name}.ts.hbs`, view);
  // Hono's app runs on any runtime; its Node server (@hono/node-server) is a file of its own.
  if (frameworks.includes("hono")) out["server/hono-node.ts"] = templates.render("server/hono-node.ts.hbs", view);
  return out;
}

/** The methods of the table the runtime has no role for, as a TypeScript union of their names ("never" when none). */
export function customMethodNames(ir: ProtocolIR): string {
  const known = new Set(Object.values(ir.profile.methods));
  const custom = ir.methods.filter((m) => !known.has(m.method)).map((m) => JSON.stringify(m.method));
  return custom.length > 0 ? custom.join(" | ") : "never";
}
