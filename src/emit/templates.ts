import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CodegenError } from "../errors.js";
import { cacheKey, packageVersion, readCachedAs, writeCached } from "../write/output-cache.js";
import { listFiles } from "../write/list-files.js";

// Handlebars is a CommonJS package: its runtime (which runs compiled templates) and its compiler (loaded
// only to compile a template the output cache does not hold).
const require = createRequire(import.meta.url);
type HandlebarsRuntime = typeof import("handlebars");

/** The package's own templates (works from src/ and from dist/). */
export const BUNDLED_TEMPLATE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../templates");

/**
 * Renders Handlebars templates by their path under templates/ (e.g. "core/protocol.ts.hbs"). A template in
 * an override folder wins over the bundled one of the same path. Templates hold file skeletons only:
 * decisions are made in the view-model the emitter passes in.
 */
export class TemplateRenderer {
  private readonly hb = (require("handlebars/runtime") as HandlebarsRuntime).create();
  private readonly cache = new Map<string, HandlebarsTemplateDelegate>();

  constructor(private readonly overrideDir?: string) {
    this.hb.registerHelper("json", (value: unknown) => JSON.stringify(value));
    // Pretty JSON whose lines after the first are indented by `indent` spaces (for nesting in a JSON file).
    this.hb.registerHelper("jsonBlock", (value: unknown, indent: unknown) =>
      JSON.stringify(value, null, 2).replace(/\n/g, `\n${" ".repeat(typeof indent === "number" ? indent : 0)}`),
    );
    this.hb.registerHelper("doc", (text: unknown, indent: unknown) => jsDoc(typeof text === "string" ? text : undefined, typeof indent === "string" ? indent : ""));
    this.hb.registerHelper("eq", (a: unknown, b: unknown) => a === b);
  }

  /** Where a template comes from: the override folder when it has one of that path. */
  resolve(path: string): string {
    if (this.overrideDir) {
      const candidate = join(this.overrideDir, path);
      if (existsSync(candidate)) return candidate;
    }
    return join(BUNDLED_TEMPLATE_DIR, path);
  }

  render(path: string, view: object): string {
    const file = this.resolve(path);
    let template = this.cache.get(file);
    if (!template) {
      let source: string;
      try {
        source = readFileSync(file, "utf8");
      } catch (error) {
        throw new CodegenError("template not found", { file, cause: error, kind: "io" });
      }
      try {
        template = this.hb.template(compiledSpec(source));
      } catch (error) {
        throw new CodegenError(templateProblem(error, view), { file, cause: error });
      }
      this.cache.set(file, template);
    }
    try {
      return template(view);
    } catch (error) {
      throw new CodegenError(templateProblem(error, view), { file, cause: error });
    }
  }
}

/** The helpers templates may use besides Handlebars' own (if, unless, each, with, lookup). */
const KNOWN_HELPERS = { json: true, jsonBlock: true, doc: true, eq: true };

/** Handlebars' compile options; a copy is passed to each compile (Handlebars adds to the options it is given). */
const compileOptions = () => ({ noEscape: true, strict: true, knownHelpers: { ...KNOWN_HELPERS }, knownHelpersOnly: true });
const COMPILE_OPTIONS_TEXT = JSON.stringify(compileOptions());

/** The key of a template's compiled spec: Handlebars' version, the compile options and the source. */
const specKey = (source: string) => cacheKey("handlebars", packageVersion("handlebars"), COMPILE_OPTIONS_TEXT, source);

/**
 * A template compiled to Handlebars' template spec (the JavaScript `Handlebars.precompile` writes): from
 * the package's precompiled table when it is a bundled template as built (`npm run build`), else from the
 * output cache when this Handlebars compiled this very source before, else compiled now (the compiler's
 * loading and its cold runs over the templates were a third of a regeneration's time). A syntax error or
 * an unknown helper is thrown here, on the first render.
 */
function compiledSpec(source: string): TemplateSpecification {
  const key = specKey(source);
  const built = precompiledTable()[key];
  if (built !== undefined) return specOf(built);
  const cached = readCachedAs("templates", key, specOf);
  if (cached !== undefined) return cached;
  const code = precompile(source);
  const spec = specOf(code);
  writeCached("templates", key, code);
  return spec;
}

/** Handlebars' compiler run on one source: the spec's source text (its types call it a TemplateSpecification). */
function precompile(source: string): string {
  return (require("handlebars") as HandlebarsRuntime).precompile(source, compileOptions()) as string;
}

/**
 * The bundled templates compiled when the package is built (scripts/precompile-templates.mjs), as
 * Handlebars' documentation advises for production: a first run loads neither Handlebars' compiler nor
 * source-map. Keyed like the output cache (Handlebars' version, options and source), so a template edited
 * since the build, an override and another Handlebars are compiled as before (a run from src/ reads the
 * built table too: a stale one holds no key of an edited source). Missing (before a build): empty.
 */
export const PRECOMPILED_TEMPLATES_FILE = resolve(dirname(fileURLToPath(import.meta.url)), "../../dist/templates.precompiled.json");
let precompiled: Record<string, string> | undefined;
function precompiledTable(): Record<string, string> {
  if (precompiled === undefined) {
    try {
      precompiled = JSON.parse(readFileSync(PRECOMPILED_TEMPLATES_FILE, "utf8")) as Record<string, string>;
    } catch {
      precompiled = {};
    }
  }
  return precompiled;
}

/** The table `precompiledTable` reads: every bundled template's spec under its key, in path order (deterministic). */
export function precompileBundledTemplates(): Record<string, string> {
  const table: Record<string, string> = {};
  for (const path of listFiles(BUNDLED_TEMPLATE_DIR).filter((p) => p.endsWith(".hbs"))) {
    const source = readFileSync(join(BUNDLED_TEMPLATE_DIR, path), "utf8");
    table[specKey(source)] = precompile(source);
  }
  return table;
}

/** The spec object of precompiled code: an object literal with the template's functions, evaluated as Handlebars' own compile does. */
function specOf(code: string): TemplateSpecification {
  return new Function(`return ${code};`)() as TemplateSpecification;
}

/** Handlebars' error as one line that starts with where: "line 4, column 2: unknown variable …". */
function templateProblem(error: unknown, view: object): string {
  const message = error instanceof Error ? error.message : String(error);
  const at = / - (\d+):(\d+)$/.exec(message);
  const where = at ? `line ${at[1]}, column ${Number(at[2]) + 1}: ` : "";
  const bare = at ? message.slice(0, at.index) : message;
  const parse = /^Parse error on line (\d+):\n([^\n]*)\n([^\n]*)\n(.*)$/s.exec(message);
  if (parse) return `template syntax error at line ${parse[1]}: ${parse[4]?.split("\n")[0]} near "${parse[2]?.trim()}"`;
  const helper = /unknown helper (\S+)/.exec(bare);
  if (helper) return `template error at ${where}unknown helper "${helper[1]}"; helpers: ${Object.keys(KNOWN_HELPERS).join(", ")}, and Handlebars' if, unless, each, with, lookup`;
  const missing = /^"([^"]+)" not defined in/.exec(bare);
  if (missing) return `template error at ${where}unknown variable "${missing[1]}"; the view has: ${Object.keys(view).sort().join(", ")}`;
  return `template error at ${where}${bare}`;
}

/** A JSDoc block for a description (empty string when there is none). */
export function jsDoc(text: string | undefined, indent = ""): string {
  if (!text || !text.trim()) return "";
  const lines = text.replace(/\*\//g, "*\\/").trimEnd().split(/\r?\n/);
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? " " + l : ""}`).join("\n")}\n${indent} */\n`;
}
