#!/usr/bin/env node
/**
 * The `a2a-codegen` command (package.json "bin"). It answers a `generate` (or `generate --check`) whose
 * every target is up to date (cli-up-to-date.ts) before anything else is loaded, and hands any other
 * command line to the CLI (cli.ts), with what it found.
 *
 * The build bundles this file with the modules of that answer into one CommonJS file, dist/bin.cjs
 * (scripts/bundle-bin.mjs): node then loads one file before it can answer, not the seventeen modules it
 * bundles, and does not start its ES module loader. The answer loads neither node:crypto nor the stdout
 * stream (DIRECT_IO). cli.ts and what it loads are not bundled: an ES module, imported for any other line.
 */
import { writeSync } from "node:fs";
import { answerUnchanged, STDIO, type CliIo, type UnchangedAnswer } from "./cli-up-to-date.js";
import { EXIT_CODES } from "./errors.js";

async function run(argv: string[]): Promise<number> {
  let answered: { fast: UnchangedAnswer } | undefined;
  try {
    answered = { fast: await answerUnchanged(argv, DIRECT_IO) };
  } catch {
    // The CLI asks again, and reports what failed with its usual message and exit code.
    answered = undefined;
  }
  if (answered?.fast !== undefined && "code" in answered.fast) return answered.fast.code;
  // `a2a-codegen diff … | head`: a closed pipe ends the output, not the process with a stack trace.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const { main } = await import("./cli.js");
  return main(argv, STDIO, answered);
}

/**
 * The fast answer's few lines, written straight to the file descriptors: process.stdout and
 * process.stderr are streams that take 3 to 8 ms to set up (node loads its stream modules for them).
 * A closed pipe ends the output, as for the CLI; a pipe that would block is left to the streams.
 */
const DIRECT_IO: CliIo = {
  out: (line) => writeLine(1, line),
  err: (line) => writeLine(2, line),
};

function writeLine(fd: 1 | 2, line: string): void {
  let bytes = Buffer.from(line + "\n");
  try {
    while (bytes.length > 0) bytes = bytes.subarray(writeSync(fd, bytes));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EPIPE") return;
    if (code !== "EAGAIN") throw error;
    (fd === 1 ? process.stdout : process.stderr).write(bytes);
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`a2a-codegen: internal error: ${String(error)}\n`);
    process.exitCode = EXIT_CODES.internal;
  },
);
