import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { Options as PrettierOptions } from "prettier";

/**
 * Prettier in a worker thread. A generation formats each file as soon as it is emitted (format.ts,
 * `startFormatting`), so that on a machine with a second core prettier's loading and formatting run while
 * this thread emits the next files (Ajv's compile, the templates). Prettier's output depends only on its
 * version, the options and the text: the worker runs the same prettier on the same options, so the output
 * is byte-for-byte what this thread would produce (test/format/prettier-thread.test.ts).
 *
 * The worker is started at the first file to format, kept for the process's later generations (watch
 * mode, the API), and never holds the process open: it is referenced only while a file is being formatted.
 * On one core, with `A2A_CODEGEN_FORMAT_THREAD=off` (the generation bench measures both ways), or when the
 * worker cannot start or dies, files are formatted in this thread.
 */

type Job = { resolve: (text: string) => void; reject: (error: Error) => void };

/** The worker's code: an ES module (a data: URL, so that it needs no file of its own beside the compiled one). */
const WORKER_SOURCE = `
import { parentPort, workerData } from "node:worker_threads";
const loaded = import(workerData.prettier).then((m) => (typeof m.format === "function" ? m : m.default));
parentPort.on("message", async ({ id, text, options }) => {
  if (text === undefined) {
    // warmFormatting: load prettier, then format a sample, which loads the parser and printer plugins.
    const prettier = await loaded.catch(() => undefined);
    if (prettier && options) await prettier.format(options.sample, options.prettier).catch(() => undefined);
    return;
  }
  try {
    parentPort.postMessage({ id, text: await (await loaded).format(text, options) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

/** The URL of the prettier this module imports (the same package the in-thread path loads). */
function prettierUrl(): string {
  if (typeof import.meta.resolve === "function") return import.meta.resolve("prettier");
  return pathToFileURL(createRequire(import.meta.url).resolve("prettier")).href;
}

class PrettierThread {
  private readonly worker: Worker;
  private readonly jobs = new Map<number, Job>();
  private next = 0;
  failed = false;

  constructor() {
    this.worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(WORKER_SOURCE)}`), { workerData: { prettier: prettierUrl() } });
    this.worker.unref();
    this.worker.on("message", ({ id, text, error }: { id: number; text?: string; error?: string }) => {
      const job = this.jobs.get(id);
      if (job === undefined) return;
      this.jobs.delete(id);
      if (this.jobs.size === 0) this.worker.unref();
      if (error !== undefined) job.reject(new Error(error));
      else job.resolve(text as string);
    });
    const fail = (error: Error) => {
      this.failed = true;
      const jobs = [...this.jobs.values()];
      this.jobs.clear();
      for (const job of jobs) job.reject(error);
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`the formatting thread exited (${code})`)));
  }

  /**
   * Loads prettier in the thread now, before any file, and formats `sample` (its parser and printer are
   * plugins loaded on the first format): the thread does not hold the process open meanwhile.
   */
  warm(sample: string, options: PrettierOptions): void {
    this.worker.postMessage({ id: -1, options: { sample, prettier: options } });
  }

  format(text: string, options: PrettierOptions): Promise<string> {
    const id = this.next++;
    return new Promise<string>((resolve, reject) => {
      if (this.jobs.size === 0) this.worker.ref();
      this.jobs.set(id, { resolve, reject });
      this.worker.postMessage({ id, text, options });
    });
  }
}

let thread: PrettierThread | undefined;
/** Set when a thread could not start or died (or is turned off): this process formats in its own thread. */
let threadUnavailable = process.env["A2A_CODEGEN_FORMAT_THREAD"] === "off";
let inThread: Promise<typeof import("prettier")> | undefined;

/**
 * Starts the worker thread, its loading of prettier and a format of `sample` now, when the caller knows
 * files will need formatting (a schema the output cache has not seen): the loading then overlaps the
 * emitting stages. Nothing happens on one core or when the thread is unavailable or already started.
 */
export function warmThread(sample: string, options: PrettierOptions): void {
  if (threadUnavailable || availableParallelism() < 2 || (thread !== undefined && !thread.failed)) return;
  thread = new PrettierThread();
  thread.warm(sample, options);
}

/**
 * Formats `text` with prettier: in the worker thread when the machine has more than one core (and
 * `where` is not "here"), else in this thread. A file prettier rejects rejects with prettier's message.
 */
export async function prettierFormat(text: string, options: PrettierOptions, where: "thread" | "here" | "auto" = "auto"): Promise<string> {
  if (where === "thread" || (where === "auto" && !threadUnavailable && availableParallelism() > 1)) {
    const current = (thread = thread !== undefined && !thread.failed ? thread : new PrettierThread());
    try {
      return await current.format(text, options);
    } catch (error) {
      // A syntax error is the file's: report it. A thread that could not start or died: format here.
      if (!current.failed || where === "thread") throw error;
      threadUnavailable = true;
    }
  }
  inThread ??= import("prettier");
  return (await inThread).format(text, options);
}
