/**
 * The yargs definitions of the declared commands and options (./declarations.ts): plain objects, so this
 * module does not load yargs; cli.ts hands them to it.
 */
import type { CommandDeclaration, OptionDeclaration } from "./declarations.js";

/** What yargs' `.option()` / `.positional()` take, of it. */
export interface YargsOption {
  type: "string" | "boolean" | "array";
  string?: true;
  alias?: string[];
  describe: string;
  default?: boolean | string;
  demandOption?: true;
}

/** The yargs definition of one option; a list option is an array of strings (listValues splits them). */
export function yargsOption(option: OptionDeclaration): YargsOption {
  const spec: YargsOption = { type: option.list ? "array" : option.type, describe: describe(option) };
  if (option.list) spec.string = true;
  if (option.aliases !== undefined && option.aliases.length > 0) spec.alias = [...option.aliases];
  if (option.default !== undefined) spec.default = option.default;
  if (option.required) spec.demandOption = true;
  return spec;
}

/** The help text, with the list rule for list options. */
function describe(option: OptionDeclaration): string {
  return option.list ? `${option.help}; comma- or space-separated, or repeated` : option.help;
}
