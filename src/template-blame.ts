import { CodegenError } from "./errors.js";
import { join, relative } from "node:path";
import { BUNDLED_TEMPLATE_DIR, type TemplateRenderer } from "./emit/templates.js";
import { formatFiles } from "./format/format.js";

/** The template each generated file is rendered from (models.ts: its end, after json-schema-to-typescript's types). */
function templateOf(file: string): string | undefined {
  const fixed: Record<string, string> = {
    "models.ts": "models/extras.ts.hbs",
    "validators.ts": "core/validators.ts.hbs",
    "protocol.ts": "core/protocol.ts.hbs",
    "index.ts": "core/index.ts.hbs",
    "client.ts": "client/client.ts.hbs",
    "card.ts": "core/card.ts.hbs",
  };
  if (fixed[file]) return fixed[file];
  const server = /^server\/(\w+)\.ts$/.exec(file);
  return server ? `server/${server[1]}.ts.hbs` : undefined;
}

/**
 * Formats the files; when one does not parse because a template override rendered invalid TypeScript,
 * the error names the override, the generated file and the place (an input error, exit 2). A file the
 * bundled templates rendered that does not parse is still a bug, and is rethrown as it is.
 */
export async function formatRendered(files: Record<string, string>, templates: TemplateRenderer, outDir: string, cwd: string): Promise<Record<string, string>> {
  try {
    return await formatFiles(files);
  } catch (error) {
    for (const [file, text] of Object.entries(files)) {
      const failure = await formatFiles({ [file]: text }).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (failure === undefined) continue;
      const template = templateOf(file);
      const source = template === undefined ? undefined : templates.resolve(template);
      if (template === undefined || source === undefined || source === join(BUNDLED_TEMPLATE_DIR, template)) throw error;
      const [first = "", ...frame] = (failure instanceof Error ? failure.message : String(failure)).split("\n");
      const at = /^(.*?) \((\d+):(\d+)\)$/.exec(first);
      const where = at ? `${show(join(outDir, file), cwd)} at line ${at[2]}, column ${at[3]}: ${at[1]}` : `${show(join(outDir, file), cwd)}: ${first}`;
      throw new CodegenError(`renders invalid TypeScript: ${where}${frame.length > 0 ? `\n${frame.join("\n")}` : ""}`.trimEnd(), { file: show(source, cwd), cause: failure });
    }
    throw error;
  }
}

function show(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") ? rel : path;
}
