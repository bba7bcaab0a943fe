import type { TemplateRenderer } from "./templates.js";

/** The modules index.ts re-exports whole, in order (models first). */
const MODULES = ["models", "protocol", "validators", "runtime/validation", "errors", "client"] as const;
/**
 * A client-only output's: the ProtoJSON defaults instead of the validators, which the client imports only
 * when asked (client-validation.ts): an index that re-exported them would put them in every bundle.
 */
const CLIENT_ONLY_MODULES = ["models", "protocol", "proto-defaults", "runtime/validation", "errors", "client"] as const;

export interface ExportedName {
  name: string;
  /** Whether the name is only a type (an interface, a type alias, an `export type { … }`). */
  typeOnly: boolean;
}

/**
 * The names a generated module exports, read from its text. The generated modules declare every export at
 * the start of a line (`export const X`, `export interface X`, `export { A, B } from …`), so a scan is
 * exact for them; it is not a TypeScript parser.
 */
export function exportedNames(text: string): ExportedName[] {
  const out: ExportedName[] = [];
  const declaration = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(class|function\*?|const|let|var|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;
  for (const m of text.matchAll(declaration)) out.push({ name: m[2] as string, typeOnly: m[1] === "interface" || m[1] === "type" });
  const list = /^export\s+(type\s+)?\{([^}]*)\}/gm;
  for (const m of text.matchAll(list)) {
    for (const item of (m[2] as string).split(",").map((s) => s.trim()).filter(Boolean)) {
      const typeItem = /^type\s+/.test(item);
      const name = item.replace(/^type\s+/, "").split(/\s+as\s+/).pop() as string;
      out.push({ name, typeOnly: m[1] !== undefined || typeItem });
    }
  }
  return out;
}

/**
 * index.ts: every module re-exported with `export *`. A definition named like an export of another module
 * (`A2AClient`, `Validator`, `ParamsOf`, …) would make `export *` ambiguous (TS2308); for each such name the
 * generated export is re-exported explicitly (an explicit export wins over `export *`), and every model stays
 * reachable as `Models.<name>`.
 */
export function emitIndex(files: Record<string, string>, templates: TemplateRenderer, header: string, clientOnly = false): string {
  const modules = clientOnly ? CLIENT_ONLY_MODULES : MODULES;
  const models = new Set(exportedNames(files["models.ts"] ?? "").map((e) => e.name));
  const shadowed: Array<ExportedName & { module: string }> = [];
  for (const module of modules.slice(1)) {
    for (const exported of exportedNames(files[`${module}.ts`] ?? "")) {
      if (models.has(exported.name) && !shadowed.some((s) => s.name === exported.name)) shadowed.push({ ...exported, module: `./${module}.js` });
    }
  }
  shadowed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return templates.render("core/index.ts.hbs", {
    header,
    modules: modules.map((m) => `./${m}.js`),
    shadowed: shadowed.map((s) => ({ statement: `export ${s.typeOnly ? "type " : ""}{ ${s.name} } from "${s.module}";` })),
    shadowedNames: shadowed.map((s) => `\`${s.name}\``).join(", "),
  });
}
