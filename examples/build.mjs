// An example build script using a2a-codegen's programmatic API (see docs/api.md).
//   node examples/build.mjs [outDir]      generate A2A 0.3.0 into outDir (default: build/a2a), then check it
// Exit codes: 0 up to date, 1 stale, 2 bad input.
import { check, CodegenError, diffProtocols, generateAndWrite, protocolIR, renderDiffText } from "a2a-codegen";

const out = process.argv[2] ?? "build/a2a";
try {
  // 1. Generate: everything is rendered in memory, then the folder is replaced at once.
  const result = await generateAndWrite({ spec: "0.3.0", out, frameworks: ["node"] });
  console.log(`generated ${Object.keys(result.files).length} files for A2A ${result.ir.specVersion} into ${result.outDir}`);
  console.log(`methods: ${result.ir.methods.map((m) => m.method).join(", ")}`);

  // 2. Check: what CI runs; nothing is written.
  const { check: outcome } = await check({ spec: "0.3.0", out, frameworks: ["node"] });
  console.log(outcome.ok ? "check: up to date" : `check: stale ${JSON.stringify(outcome)}`);

  // 3. What moving from 0.2.6 would change.
  const diff = diffProtocols(await protocolIR("0.2.6"), await protocolIR("0.3.0"));
  console.log(renderDiffText(diff).split("\n")[1]);
  process.exitCode = outcome.ok ? 0 : 1;
} catch (error) {
  if (!(error instanceof CodegenError)) throw error;
  console.error(error.message); // names the file and JSON pointer
  process.exitCode = error.exitCode;
}
