// Writes one benchmark's latest results into bench/README.md, between the markers
// `<!-- latest:NAME -->` and `<!-- /latest:NAME -->` (appended under "## Latest runs" when absent), so that
// the README always shows the rows of the last run as the bench printed them, never numbers typed by hand.
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";

const README = join(resolve(import.meta.dirname), "README.md");

/**
 * @param {string} name the bench (generate, validators, client, server)
 * @param {string} title the section's heading
 * @param {string} body what the bench printed (tables and the goals with PASS/MISS), as plain text
 * @param {{ command: string, machine: string, state?: { busy: boolean, summary: string } }} meta how it was run and on
 *   what; `state`: how busy the machine was (bench/machine-load.mjs), so that the section says whether its
 *   verdicts stand
 */
export function writeReadmeSection(name, title, body, meta) {
  const start = `<!-- latest:${name} -->`;
  const end = `<!-- /latest:${name} -->`;
  const section = [
    start,
    `### ${title}`,
    "",
    `Written by \`${meta.command}\` on ${new Date().toISOString().slice(0, 10)}; ${meta.machine}.`,
    ...(meta.state ? ["", meta.state.busy ? `**Busy machine: no rate verdicts.** ${meta.state.summary}.` : `Quiet machine: ${meta.state.summary}.`] : []),
    "",
    "```",
    body.trimEnd(),
    "```",
    end,
  ].join("\n");
  let text = readFileSync(README, "utf8");
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from >= 0 && to > from) text = text.slice(0, from) + section + text.slice(to + end.length);
  else {
    if (!text.includes("\n## Latest runs\n")) text = `${text.trimEnd()}\n\n## Latest runs\n\nEach bench rewrites its own section below at the end of a run (unless \`--no-write\`).\n`;
    text = `${text.trimEnd()}\n\n${section}\n`;
  }
  writeFileSync(README, text);
}

/** This machine as `machineLine` describes it: cores, CPU model, node, 1-minute load now. */
export function currentMachine() {
  return { cpus: cpus().length, model: cpus()[0]?.model ?? "unknown CPU", node: process.version, load: loadavg()[0] };
}

/** A one-line description of the machine, for the sections. */
export function machineLine(m) {
  return `${m.cpus} × ${m.model}, node ${m.node}, load ${Number(m.load ?? 0).toFixed(2)} at the start`;
}

/** Records what console.log prints from now on (it still prints); returns a function giving the lines so far. */
export function captureConsole() {
  const lines = [];
  const original = console.log;
  console.log = (...args) => {
    lines.push(args.map((a) => (typeof a === "string" ? a : String(a))).join(" "));
    original(...args);
  };
  return () => lines.join("\n");
}
