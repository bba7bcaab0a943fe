import type { CliIo } from "../cli-up-to-date.js";
import { EXIT_CODES } from "../errors.js";
import { migrate } from "./command.js";
import { formatUnchanged } from "./report.js";

export interface MigrateArgs {
  paths?: string[];
  from?: string;
  to?: string;
  dryRun?: boolean;
  store?: string;
}

/** `a2a-codegen migrate`: runs the migration and prints the diff (--dry-run) or what was written, then what is left to do. */
export async function runMigrate(args: MigrateArgs, io: CliIo): Promise<number> {
  const started = performance.now();
  const result = await migrate({ from: args.from, to: args.to, dryRun: args.dryRun, paths: args.paths, store: args.store });
  if (result.from === result.to) {
    io.out(`the project is generated for A2A ${result.to} already: nothing to migrate (give --from to rewrite code written for another version)`);
    return EXIT_CODES.ok;
  }
  if (args.dryRun) {
    if (result.diff !== "") io.out(result.diff.trimEnd());
    io.out(`${result.files.length === 0 ? "nothing to change" : `${result.files.length} file${result.files.length === 1 ? "" : "s"} would change`} (A2A ${result.from} → ${result.to}, rules from the ${result.source === "mapping" ? "version mapping" : "IR diff"}); nothing written`);
  } else {
    for (const f of result.files) io.out(`${f.path}: ${f.why === "code" ? "rewritten" : f.why === "scaffold" ? `moved to the ${result.to} scaffold${result.conflicts.includes(f.path) ? " (with conflicts: search for <<<<<<<)" : ""}` : f.why === "config" ? `spec ${result.to}` : `card converted to ${result.to}`}`);
    io.out(
      `A2A ${result.from} → ${result.to}: ${result.files.length} file${result.files.length === 1 ? "" : "s"} changed${result.regenerated ? ", generated/ regenerated" : ""} in ${Math.round(performance.now() - started)} ms`,
    );
  }
  if (result.outside.length > 0) io.out(`outside the given paths, left as they are: ${result.outside.join(", ")}`);
  if (result.stored) io.out(`store: ${result.stored.tasks} task${result.stored.tasks === 1 ? "" : "s"} and ${result.stored.configs} push config${result.stored.configs === 1 ? "" : "s"} rewritten in A2A ${result.to}'s shapes (${result.stored.unchanged} already were)`);
  else if (args.store !== undefined && args.dryRun) io.out("store: left as it is (--dry-run)");
  if (result.stores.length > 0) {
    io.out(
      `\nnot converted yet: the tasks your ${result.stores.join(" and ")} store holds are in A2A ${result.from}'s shapes; ` +
        `let the running tasks finish, then rewrite them with \`a2a-codegen migrate --from ${result.from} --to ${result.to} --store "$A2A_STORE_URL"\``,
    );
  }
  if (result.unchanged.length > 0) {
    io.out(`\n${result.unchanged.length} place${result.unchanged.length === 1 ? "" : "s"} to change by hand:`);
    io.out(formatUnchanged(result.unchanged));
  }
  if (!args.dryRun && !result.regenerated && !result.moved && result.files.length > 0) io.out("\nnext: set `spec` to the new version and run `npm run generate` (a2a-codegen generate)");
  return EXIT_CODES.ok;
}
