/**
 * The generated parts of docs/cli.md, docs/config.md and docs/api.md: the synopsis, each command's option
 * table, the config keys' table and the GenerateOptions table, rendered from the declarations
 * (./declarations.ts) between markers `<!-- options:<name>:begin -->` and `<!-- options:<name>:end -->`. `npm run docs:options` rewrites them
 * (scripts/option-docs.mjs); test/repo/options.test.ts fails, with the expected text, when they are stale.
 */
import { COMMANDS, CONFIG_OPTIONS, type CommandDeclaration, type OptionDeclaration } from "./declarations.js";

export type CommandName = keyof typeof COMMANDS;

/** The spellings of an option: `--framework`, `--frameworks`; `-w` for a short alias; `--no-compat` for a negatable one. */
export function spellings(option: OptionDeclaration): string[] {
  if (option.positional) return [`<${option.flag}>`];
  const names = [option.flag, ...(option.aliases ?? [])].map((f) => (f.length === 1 ? `-${f}` : `--${f}`));
  return option.negatable ? [...names, `--no-${option.flag}`] : names;
}

/** What an option takes, in words: its allowed values where they are a fixed list, else its placeholder. */
function takes(option: OptionDeclaration): string {
  if (option.type === "boolean") return "—";
  const values = option.values;
  if (values !== undefined && values.noun !== "spec version") {
    return `${option.list ? "any of " : "one of "}${values.allowed().map((v) => `\`${v}\``).join(", ")}`;
  }
  const what = values?.noun === "spec version" ? `${option.placeholder ?? "V"} (a bundled version)` : (option.placeholder ?? "VALUE");
  return option.list ? `${what}, a list` : what;
}

/** Markdown table cell text: no pipes, no tags. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One command's line of the synopsis, wrapped at 100 columns. */
export function synopsisLine(name: CommandName): string {
  const command: CommandDeclaration = COMMANDS[name];
  const words = [`a2a-codegen ${command.command.split(" ")[0] as string}`];
  for (const option of command.options) {
    if (option.positional) words.push(option.required ? `<${option.flag}>` : `[${option.flag}]`);
    else {
      const flag = `--${option.flag}${option.type === "boolean" ? "" : ` ${option.placeholder ?? "VALUE"}`}`;
      words.push(option.negatable ? `[${flag} | --no-${option.flag}]` : option.required ? flag : `[${flag}]`);
    }
  }
  const lines: string[] = [];
  let line = "";
  const indent = " ".repeat((words[0] as string).length + 1);
  for (const word of words) {
    if (line !== "" && line.length + 1 + word.length > 100) {
      lines.push(line);
      line = indent + word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join("\n");
}

/** The synopsis of every command, as a code block. */
export function renderSynopsis(): string {
  return ["```", ...(Object.keys(COMMANDS) as CommandName[]).map(synopsisLine), "a2a-codegen --help | --version", "```"].join("\n");
}

/** The option table of one command. */
export function renderOptionTable(name: CommandName): string {
  const options: readonly OptionDeclaration[] = COMMANDS[name].options;
  const withConfig = options.some((o) => o.config !== undefined);
  const rows = [
    withConfig ? "| option | takes | config key | what it does |" : "| option | takes | what it does |",
    withConfig ? "|---|---|---|---|" : "|---|---|---|",
  ];
  for (const option of options) {
    const names = spellings(option).map((s) => `\`${s}\``).join(", ");
    let help = option.help;
    if (option.list) help += "; comma- or space-separated, or the flag repeated";
    if (option.default !== undefined && option.type !== "boolean") help += ` (default: \`${String(option.default)}\`)`;
    if (option.required) help += " (required)";
    const configKey = option.config === undefined ? "" : `\`${option.config}\``;
    rows.push(withConfig ? `| ${names} | ${cell(takes(option))} | ${configKey} | ${cell(help)} |` : `| ${names} | ${cell(takes(option))} | ${cell(help)} |`);
  }
  return rows.join("\n");
}

/** The table of the config file's keys. */
export function renderConfigTable(): string {
  const rows = ["| key | value | flag | what it does |", "|---|---|---|---|"];
  for (const option of CONFIG_OPTIONS as readonly OptionDeclaration[]) {
    const value =
      option.type === "boolean"
        ? "`true` or `false`"
        : option.list
          ? `an array of: ${option.values?.allowed().map((v) => `\`${v}\``).join(", ") ?? "strings"}`
          : option.values !== undefined
            ? "a bundled version (string)"
            : option.path
              ? "a path (string), relative to the config file"
              : "a string";
    rows.push(`| \`${option.config as string}\` | ${cell(value)} | \`--${option.flag}\` | ${cell(option.help)} |`);
  }
  rows.push("| `targets` | an array of objects with the keys above | | several targets; the top-level keys are defaults for each |");
  return rows.join("\n");
}

/** The table of GenerateOptions, for docs/api.md. */
export function renderApiTable(): string {
  const rows = ["| option | value | meaning |", "|---|---|---|"];
  for (const option of CONFIG_OPTIONS as readonly OptionDeclaration[]) {
    const allowed = option.values?.noun === "spec version" ? undefined : option.values?.allowed().map((v) => `\`"${v}"\``).join(", ");
    const value =
      option.type === "boolean"
        ? "`boolean`"
        : option.list
          ? `an array of ${allowed ?? "strings"}`
          : option.values !== undefined
            ? "a bundled version"
            : option.path
              ? "a path, relative to `cwd`"
              : "`string`";
    rows.push(`| \`${option.config as string}\` | ${cell(value)} | ${cell(option.help)} (\`--${option.flag}\`) |`);
  }
  rows.push("| `cwd` | a path | the base of relative paths (default: the process's working folder) |");
  return rows.join("\n");
}

/** The generated regions of docs/api.md, by marker name. */
export function apiDocRegions(): Record<string, string> {
  return { api: renderApiTable() };
}

/** The generated regions of docs/cli.md, by marker name. */
export function cliDocRegions(): Record<string, string> {
  const regions: Record<string, string> = { synopsis: renderSynopsis() };
  for (const name of Object.keys(COMMANDS) as CommandName[]) regions[name] = renderOptionTable(name);
  return regions;
}

/** The generated regions of docs/config.md, by marker name. */
export function configDocRegions(): Record<string, string> {
  return { config: renderConfigTable() };
}

/** `text` with each region between its markers replaced; a missing marker is an error naming it. */
export function replaceRegions(text: string, regions: Record<string, string>, file: string): string {
  let out = text;
  for (const [name, body] of Object.entries(regions)) {
    const begin = `<!-- options:${name}:begin -->`;
    const end = `<!-- options:${name}:end -->`;
    const from = out.indexOf(begin);
    const to = out.indexOf(end);
    if (from < 0 || to < from) throw new Error(`${file}: the markers ${begin} … ${end} are missing`);
    out = `${out.slice(0, from + begin.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}
