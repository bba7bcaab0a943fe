import { basename, dirname, join } from "node:path";
import type * as TsMorph from "ts-morph";
import { COMPAT_TABLES } from "../compat/tables.js";
import type { Framework } from "../emit/server.js";
import { TEMPLATES, type Template } from "../options/vocabularies.js";
import { renderScaffold } from "../scaffold/init.js";
import type { ProjectFacts } from "./project.js";
import { rewriteFile, type GeneratedVersionOf, type Morph, type Unchanged } from "./rewrite.js";
import type { MigrationRules } from "./rules.js";
import { merge3 } from "./text-diff.js";

/** The scaffold's own code files (`init` writes them; the user may edit them). */
export const SCAFFOLD_CODE = ["src/server.ts", "test/agent.test.ts"] as const;

export interface ScaffoldMerge {
  files: Array<{ path: string; before: string; after: string; why: "scaffold"; conflicts: number }>;
  /** The scaffold paths merged here (the caller does not rewrite them again). */
  bases: Set<string>;
  unchanged: Unchanged[];
}

/**
 * The scaffold's files moved to what `init` writes for the new version, keeping the user's edits: a
 * three-way merge of the file `init` wrote for the old version (base), the user's file (ours), and the
 * file `init` writes for the new one (theirs). Base and ours are first rewritten by the same rules, so
 * that the user's edits come over in the new shapes; where both changed the same lines, a marked conflict.
 */
export async function mergeScaffold(
  morph: Morph,
  project: TsMorph.Project,
  facts: ProjectFacts,
  rules: MigrationRules,
  paths: readonly string[],
  versionOf: GeneratedVersionOf,
): Promise<ScaffoldMerge> {
  const config = facts.config ?? {};
  const strings = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : undefined);
  const common = {
    dir: facts.dir,
    name: facts.name,
    framework: (strings(config.frameworks)?.[0] ?? "fastify") as Framework,
    // As generate reads the config: JSON-RPC only when it names no transports.
    transports: strings(config.transports) ?? ["jsonrpc"],
    store: strings(config.stores)?.[0],
    // The Durable Object store is the Workers scaffold's (init --runtime workers).
    ...(strings(config.stores)?.includes("durable-object") ? { runtime: "workers" as const } : {}),
  };
  const fromCompat = typeof config.compat === "string" && config.spec === rules.from ? config.compat : false;
  const toCompat = COMPAT_TABLES.some((t) => t.primary === rules.to && t.compat === rules.from) ? rules.from : false;
  const template = await scaffoldTemplateOf(project, facts, strings(config.bridges) ?? [], (t) => renderScaffold({ ...common, template: t, spec: rules.from, compat: fromCompat }, paths));
  const old = await renderScaffold({ ...common, template, spec: rules.from, compat: fromCompat }, paths);
  const next = await renderScaffold({ ...common, template, spec: rules.to, compat: toCompat }, paths);
  const result: ScaffoldMerge = { files: [], bases: new Set(paths), unchanged: [] };
  for (const path of paths) {
    const user = project.getSourceFileOrThrow(join(facts.dir, path));
    const base = project.createSourceFile(join(dirname(user.getFilePath()), `.a2a-migrate-base.${basename(path)}`), old[path] ?? "", { overwrite: true });
    try {
      const ours = rewriteFile(morph, user, rules, versionOf);
      const theirs = rewriteFile(morph, base, rules, versionOf);
      const merged = merge3(theirs.after, ours.after, next[path] ?? "", { ours: `${path} (yours, ${rules.from} shapes rewritten)`, theirs: `${path} as init writes it for ${rules.to}` });
      result.files.push({ path, before: ours.before, after: merged.text, why: "scaffold", conflicts: merged.conflicts });
      // The user's shapes the rules could not move, unless the new scaffold replaced those lines anyway.
      result.unchanged.push(...ours.unchanged.filter((u) => !theirs.unchanged.some((t) => t.old === u.old && t.hint === u.hint)));
    } finally {
      project.removeSourceFile(base);
    }
  }
  return result;
}

/**
 * The agent template `init` wrote the project with: the echo agent, or the template of a bridge the config
 * names (`init --template ai-sdk` writes `"bridges": ["ai-sdk"]`). A bridge may also have been added by
 * hand to an echo project, so among those candidates the one whose files share the most lines with the
 * user's is the merge base.
 */
async function scaffoldTemplateOf(
  project: TsMorph.Project,
  facts: ProjectFacts,
  bridges: readonly string[],
  render: (template: Template) => Promise<Record<string, string>>,
): Promise<Template> {
  const candidates: Template[] = ["echo", ...TEMPLATES.filter((t) => t !== "echo" && bridges.includes(t))];
  if (candidates.length === 1) return "echo";
  let best: { template: Template; shared: number } | undefined;
  for (const template of candidates) {
    const files = await render(template);
    let shared = 0;
    for (const [path, text] of Object.entries(files)) {
      const user = project.getSourceFile(join(facts.dir, path))?.getFullText() ?? "";
      const lines = new Set(user.split("\n").map((l) => l.trim()).filter((l) => l !== ""));
      shared += text.split("\n").filter((l) => l.trim() !== "" && lines.has(l.trim())).length;
    }
    if (!best || shared > best.shared) best = { template, shared };
  }
  return best?.template ?? "echo";
}
