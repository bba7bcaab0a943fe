import { join, resolve } from "node:path";
import * as morph from "ts-morph";
import { generatedVersions } from "../../src/migrate/project.js";
import { rewriteFile, type FileRewrite } from "../../src/migrate/rewrite.js";
import { migrationRules, type MigrationRules } from "../../src/migrate/rules.js";

export const ROOT = resolve(import.meta.dirname, "../..");

const rules = new Map<string, MigrationRules>();
const versionOf = generatedVersions(ROOT);
let project: morph.Project | undefined;

/** The rules of a version pair (derived once per test file). */
export function rulesOf(from: string, to: string): MigrationRules {
  const key = `${from}>${to}`;
  if (!rules.has(key)) rules.set(key, migrationRules(from, to));
  return rules.get(key) as MigrationRules;
}

/**
 * Rewrites a snippet that imports the committed generated code (`../../generated/a2a-<v>/…`), as a file of
 * test/migrate/, with the type checker seeing the real generated types.
 */
export function rewrite(code: string, from: string, to: string, name = "__snippet.ts"): FileRewrite {
  project ??= new morph.Project({
    compilerOptions: {
      strict: true,
      target: morph.ts.ScriptTarget.ES2022,
      module: morph.ts.ModuleKind.NodeNext,
      moduleResolution: morph.ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: ["node"],
    },
    skipAddingFilesFromTsConfig: true,
  });
  const file = project.createSourceFile(join(ROOT, "test/migrate", name), code, { overwrite: true });
  try {
    return rewriteFile(morph, file, rulesOf(from, to), versionOf);
  } finally {
    project.removeSourceFile(file);
  }
}

/** The 0.3.0 models and client, as a snippet imports them. */
export const V03 = `import type * as M from "../../generated/a2a-0.3.0/models.js";\nimport { A2AClient } from "../../generated/a2a-0.3.0/client.js";\n`;
export const V10 = `import type * as M from "../../generated/a2a-1.0.1/models.js";\nimport { A2AClient } from "../../generated/a2a-1.0.1/client.js";\n`;
