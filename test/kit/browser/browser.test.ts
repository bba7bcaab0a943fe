// The kit's client suite in headless Chromium (issue 32): a page bundling the generated 1.0.1 client, the mock
// agent and the MSW handlers (msw/browser's service worker) runs send, stream, get, cancel and a typed error
// over JSON-RPC and HTTP+JSON. Debian's chromium through playwright-core; skipped where it is not installed.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { generateKit } from "../generated-kit.js";
import { ROOT } from "../../support/project.js";
import { CHROMIUM, CHROMIUM_SKIP, chromiumMissing, launchChromium } from "../../support/chromium.js";

let server: Server | undefined;
let base = "";

beforeAll(async () => {
  if (chromiumMissing) return;
  const kit = await generateKit();
  const { build } = await import("rolldown");
  const bundle = await build({
    input: join(import.meta.dirname, "page.ts"),
    platform: "browser",
    resolve: { alias: { kit: kit.dir } },
    write: false,
    output: { format: "esm" },
    logLevel: "silent",
  });
  const code = bundle.output[0].code;
  const worker = readFileSync(join(ROOT, "node_modules", "msw", "lib", "mockServiceWorker.js"), "utf8");
  server = createServer((req, res) => {
    const [type, body] =
      req.url === "/page.js" ? ["text/javascript", code] : req.url === "/mockServiceWorker.js" ? ["text/javascript", worker] : ["text/html", '<!doctype html><script type="module" src="/page.js"></script>'];
    res.writeHead(200, { "content-type": type }).end(body);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  base = `http://localhost:${(server.address() as { port: number }).port}`;
}, 180_000);
afterAll(() => server?.close());

const missing = chromiumMissing;
if (missing) console.warn(`skipping the headless Chromium test: ${CHROMIUM_SKIP}`);
it.skipIf(missing)(
  missing ? `the client suite in headless Chromium — skipped: no ${CHROMIUM} (apt-get install chromium)` : "the client suite passes in headless Chromium through MSW",
  async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const logs: string[] = [];
      page.on("console", (m) => logs.push(m.text()));
      page.on("pageerror", (e) => logs.push(String(e)));
      await page.goto(`${base}/`);
      await page.waitForFunction(() => window.kitResult !== undefined, undefined, { timeout: 30_000 });
      const failures = await page.evaluate(() => window.kitResult);
      expect(failures, logs.join("\n")).toEqual([]);
    } finally {
      await browser.close();
    }
  },
  120_000,
);
