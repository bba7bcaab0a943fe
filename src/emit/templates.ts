import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import { CodegenError } from "../errors.js";

/** The package's own templates (works from src/ and from dist/). */
export const BUNDLED_TEMPLATE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../templates");

/**
 * Renders Handlebars templates by their path under templates/ (e.g. "core/protocol.ts.hbs"). A template in
 * an override folder wins over the bundled one of the same path. Templates hold file skeletons only:
 * decisions are made in the view-model the emitter passes in.
 */
export class TemplateRenderer {
  private readonly hb = Handlebars.create();
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
      // Handlebars compiles on the first render: a syntax error or an unknown helper is reported there.
      template = this.hb.compile(source, { noEscape: true, strict: true, knownHelpers: KNOWN_HELPERS, knownHelpersOnly: true });
      this.cache.set(file, template);
    }
    try {
      return template(view);
    } catch (error) {
      throw new CodegenError(templateProblem(error, view), { file, cause: error });
    }
  }
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

/** The helpers templates may use besides Handlebars' own (if, unless, each, with, lookup). */
const KNOWN_HELPERS = { json: true, jsonBlock: true, doc: true, eq: true };

/** A JSDoc block for a description (empty string when there is none). */
export function jsDoc(text: string | undefined, indent = ""): string {
  if (!text || !text.trim()) return "";
  const lines = text.replace(/\*\//g, "*\\/").trimEnd().split(/\r?\n/);
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? " " + l : ""}`).join("\n")}\n${indent} */\n`;
}
