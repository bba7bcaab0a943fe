/**
 * The test kit of an output (`--testing`): `testing/index.ts` (the in-memory client and the typed mock
 * agent), `testing/msw.ts` (MSW handlers; the only file that imports msw) and `testing/fixtures.ts` (a
 * builder of a valid example value for every type, derived from the IR by ./fixture-values.ts). The
 * runtime they stand on is the `testing/` runtime bundle (emit/runtime-bundles.ts).
 */
import type { ProtocolIR } from "../../ir/types.js";
import type { TemplateRenderer } from "../templates.js";
import { fixtureValues } from "./fixture-values.js";

/** The origin of the kit's agents (runtime/testing/mock-agent.ts TEST_AGENT_ORIGIN). */
const ORIGIN = "http://agent.test";

/** The card the mock agent serves by default: the AgentCard fixture, pointing at the mock's bindings. */
export function mockCard(ir: ProtocolIR, examples: Record<string, unknown>, rest: boolean): Record<string, unknown> {
  const card = structuredClone(examples[ir.core.agentCard]) as Record<string, unknown>;
  const schema = ir.types.find((t) => t.name === ir.core.agentCard)?.schema ?? {};
  const properties = (schema["properties"] ?? {}) as Record<string, unknown>;
  card["name"] = "Mock agent";
  card["description"] = "The test kit's scriptable mock agent";
  if ("supportedInterfaces" in properties) {
    const base = (examples["AgentInterface"] ?? {}) as Record<string, unknown>;
    const version = ir.specVersion.split(".").slice(0, 2).join(".");
    const entry = (binding: string, url: string) => ({ ...base, url, protocolBinding: binding, protocolVersion: version });
    card["supportedInterfaces"] = [entry("JSONRPC", `${ORIGIN}/`), ...(rest ? [entry("HTTP+JSON", ORIGIN)] : [])];
  }
  if ("url" in properties) card["url"] = `${ORIGIN}/`;
  if ("preferredTransport" in properties) card["preferredTransport"] = "JSONRPC";
  for (const modes of ["defaultInputModes", "defaultOutputModes"]) if (modes in properties) card[modes] = ["text/plain", "application/json"];
  if ("capabilities" in properties) card["capabilities"] = { ...((card["capabilities"] ?? {}) as object), streaming: true };
  return card;
}

export function emitTestKit(ir: ProtocolIR, templates: TemplateRenderer, header: string, clientText: string): Record<string, string> {
  const examples = fixtureValues(ir);
  // The mock answers HTTP+JSON where that binding carries the JSON-RPC shapes (1.0; 0.3.0's proto shapes differ).
  const rest = /^export const restTransport\b/m.test(clientText) && !ir.specVersion.startsWith("0.");
  const types = ir.types.map((t) => ({ name: t.name, object: typeof examples[t.name] === "object" && examples[t.name] !== null && !Array.isArray(examples[t.name]) }));
  return {
    "testing/index.ts": templates.render("testing/index.ts.hbs", {
      header,
      rest,
      restClient: /^export const restTransport\b/m.test(clientText),
      mockCard: JSON.stringify(mockCard(ir, examples, rest)),
    }),
    "testing/msw.ts": templates.render("testing/msw.ts.hbs", { header }),
    "testing/fixtures.ts": templates.render("testing/fixtures.ts.hbs", { header, examples: JSON.stringify(examples), types }),
  };
}
