// Client size benchmark (issue 35 item 3): the client-only output's client bundled for the browser with
// esbuild (minified, ES2022, code splitting as an app bundles it), gzipped (level 9), for A2A 1.0.1 and
// 0.3.0: a page that reads the card, sends and streams over JSON-RPC (no validation; the goal: ≤ 15 kB gzip,
// beside the SDK client's ~12 kB), the same with the HTTP+JSON transport, and the same with the opt-in schema
// checks (`validation: clientValidation`, which brings the generated validators: reported, no goal). Beside
// them, @a2a-js/sdk's client (ClientFactory, 0.3.14 and 1.3.0) bundled the same way, for reference.
//
//   node bench/client-size.mjs [--no-write]
//
// What a row counts is what the browser loads: the entry chunk and the chunks it imports statically. The
// Node-only request (client/node-fetch.ts, imported at run time on Node only) is a chunk of its own, shown
// apart. Run after `npm run build`. See bench/README.md, section "Client size".
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { captureConsole, currentMachine, machineLine, writeReadmeSection } from "./readme-section.mjs";

const ROOT = resolve(import.meta.dirname, "..");
/** The goal of issue 35: the client without validation, bundled for the browser, at most this many bytes gzipped. */
const GOAL_GZIP_BYTES = 15_000;
const write = !process.argv.includes("--no-write");

/** The page each row bundles: the card read, a send and a stream over the chosen transport. */
function page(variant) {
  const imports = [`import { A2AClient${variant === "rest" ? ", restTransport" : ""} } from "./a2a/client.js";`];
  if (variant === "validation") imports.push(`import { clientValidation } from "./a2a/client-validation.js";`);
  const options = variant === "rest" ? "{ transports: [restTransport] }" : variant === "validation" ? "{ validation: clientValidation }" : "{}";
  return `${imports.join("\n")}
const client = await A2AClient.fromAgentUrl(location.origin, ${options});
console.log(await client.sendMessage(A2AClient.sendParams("hi")));
for await (const event of client.sendStreamingMessage(A2AClient.sendParams("hi"))) console.log(event);
`;
}

/** The SDK client's page: the card read by its ClientFactory, a send and a stream. */
function sdkPage(module) {
  return `import { ClientFactory } from "${module}";
const client = await new ClientFactory().createFromUrl(location.origin);
const message = { kind: "message", role: "user", messageId: crypto.randomUUID(), parts: [{ kind: "text", text: "hi" }] };
console.log(await client.sendMessage({ message }));
for await (const event of client.sendMessageStream({ message })) console.log(event);
`;
}

/** Bundles `entry` and measures what the browser loads (entry + static imports) and the lazy chunks apart. */
async function measure(dir, name, source) {
  const entry = join(dir, `${name}.ts`);
  writeFileSync(entry, source);
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    outdir: join(dir, `out-${name}`),
    write: false,
    metafile: true,
    logLevel: "error",
    nodePaths: [join(ROOT, "node_modules")],
  });
  const byPath = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
  const outputs = result.metafile.outputs;
  const entryOut = Object.keys(outputs).find((path) => outputs[path].entryPoint !== undefined);
  const loaded = new Set();
  const walk = (path) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const imported of outputs[path].imports) if (imported.kind === "import-statement") walk(imported.path);
  };
  walk(entryOut);
  const size = (paths) => {
    const bytes = paths.map((p) => byPath.get(resolve(p)) ?? new Uint8Array());
    return { min: bytes.reduce((s, b) => s + b.byteLength, 0), gzip: bytes.reduce((s, b) => s + gzipSync(b, { level: 9 }).byteLength, 0) };
  };
  const lazy = Object.keys(outputs).filter((p) => p.endsWith(".js") && !loaded.has(p));
  return { loaded: size([...loaded]), lazy: lazy.length > 0 ? size(lazy) : undefined };
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;
const { generate, writeResult } = await import(pathToFileURL(join(ROOT, "dist", "generate.js")).href);
const printed = captureConsole();
const machine = currentMachine();
const work = mkdtempSync(join(tmpdir(), "a2a-client-size-"));
const verdicts = [];
try {
  console.log("| client (bundled for the browser, minified) | loaded: min | loaded: gzip | lazy Node-only chunk: gzip |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const version of ["1.0.1", "0.3.0"]) {
    const dir = join(work, version);
    writeResult(await generate({ spec: version, clientOnly: true, out: join(dir, "a2a") }));
    for (const [variant, label] of [["plain", "JSON-RPC, no validation"], ["rest", "with the HTTP+JSON transport"], ["validation", "with validation (clientValidation)"]]) {
      const { loaded, lazy } = await measure(dir, variant, page(variant));
      console.log(`| a2a-codegen ${version} client-only, ${label} | ${kb(loaded.min)} | ${loaded.gzip.toLocaleString("en")} B (${kb(loaded.gzip)}) | ${lazy ? `${lazy.gzip.toLocaleString("en")} B` : "—"} |`);
      if (variant === "plain") verdicts.push({ version, gzip: loaded.gzip });
    }
  }
  for (const [module, label] of [["@a2a-js/sdk/client", "@a2a-js/sdk 0.3.14"], ["a2a-sdk-v1/client", "@a2a-js/sdk 1.3.0"]]) {
    const { loaded } = await measure(work, `sdk-${label.replace(/\W+/g, "-")}`, sdkPage(module));
    console.log(`| ${label} client (ClientFactory), for reference | ${kb(loaded.min)} | ${loaded.gzip.toLocaleString("en")} B (${kb(loaded.gzip)}) | — |`);
  }
  console.log("");
  for (const { version, gzip } of verdicts) {
    console.log(`${gzip <= GOAL_GZIP_BYTES ? "PASS" : "MISS"}  A2A ${version}: the client-only client without validation is ${gzip.toLocaleString("en")} B gzip (goal ≤ ${GOAL_GZIP_BYTES.toLocaleString("en")} B)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (write) writeReadmeSection("client-size", "Client size", printed(), { command: `node bench/client-size.mjs ${process.argv.slice(2).join(" ")}`.trim(), machine: machineLine(machine) });
