// The client-only client in headless Chromium (issue 35 acceptance: "the generated client, bundled, calls an
// agent from a page in headless Chromium, streaming included"). The page (page.ts) is bundled with esbuild for
// the browser (code splitting on, as an app bundles it) from a client-only 1.0.1 output, served by a
// generated 1.0.1 agent on the same origin, and calls it over JSON-RPC and HTTP+JSON (send, stream with its
// artifact and final state, a typed error; specification-1.0.1.md §3.1, §9, §11). The Node-only request
// (client/node-fetch.ts) is a chunk of its own the page must never load. Debian's chromium through
// playwright-core; skipped with a message where it is not installed.
import { basename, join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_SKIP, chromiumMissing, launchChromium } from "../../support/chromium.js";
import { startAgent, type RunningAgent } from "../agent.js";
import { clientOnlyOutput } from "../output.js";

let agent: RunningAgent | undefined;
/** The bundle's files by URL path (/page.js and its chunks). */
const assets = new Map<string, string>();
/** The paths the page asked for. */
const requested: string[] = [];

beforeAll(async () => {
  if (chromiumMissing) return;
  const output = await clientOnlyOutput("1.0.1");
  const { build } = await import("esbuild");
  const bundle = await build({
    entryPoints: { page: join(import.meta.dirname, "page.ts") },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: "/bundle",
    write: false,
    alias: { "client-only-output": output.dir },
    logLevel: "silent",
  });
  for (const file of bundle.outputFiles) assets.set(`/${basename(file.path)}`, file.text);
  agent = await startAgent((req, res) => {
    const path = req.url ?? "/";
    if (path !== "/" && !assets.has(path)) return false;
    requested.push(path);
    const body = path === "/" ? '<!doctype html><script type="module" src="/page.js"></script>' : (assets.get(path) as string);
    res.writeHead(200, { "content-type": path === "/" ? "text/html" : "text/javascript" }).end(body);
    return true;
  });
}, 120_000);
afterAll(() => agent?.close());

const missing = chromiumMissing;
if (missing) console.warn(`skipping the client-only test in headless Chromium: ${CHROMIUM_SKIP}`);
it.skipIf(missing)(
  missing ? `the client-only client in headless Chromium — skipped: no ${CHROMIUM} (apt-get install chromium)` : "the bundled client-only client calls the agent from a page in headless Chromium, streaming included",
  async () => {
    expect([...assets.keys()].some((path) => path.startsWith("/node-fetch"))).toBe(true);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const logs: string[] = [];
      page.on("console", (m) => logs.push(m.text()));
      page.on("pageerror", (e) => logs.push(String(e)));
      await page.goto(`${agent?.baseUrl}/`);
      await page.waitForFunction(() => window.clientResult !== undefined || window.clientError !== undefined, undefined, { timeout: 30_000 });
      expect(await page.evaluate(() => window.clientError), logs.join("\n")).toBeUndefined();
      const result = (await page.evaluate(() => window.clientResult)) as Record<string, { binding: string; reply: string; states: string[]; text: string; typedError: string } | string>;
      for (const binding of ["JSONRPC", "HTTP+JSON"]) {
        const seen = result[binding] as { binding: string; reply: string; states: string[]; text: string; typedError: string };
        expect(seen.binding).toBe(binding);
        expect(seen.reply).toContain("hello back");
        expect(seen.states.at(-1)).toBe("TASK_STATE_COMPLETED");
        expect(seen.states).toContain("TASK_STATE_WORKING");
        expect(seen.text).toBe("the result of a story");
        expect(seen.typedError).toBe("A2ATaskNotFoundError");
      }
      expect(result["validated"]).toContain("hello back");
      // The browser never loaded the Node-only chunk.
      expect(requested.filter((path) => path.startsWith("/node-fetch"))).toEqual([]);
      expect(requested).toContain("/page.js");
    } finally {
      await browser.close();
    }
  },
  120_000,
);
