import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { projectTempDir, ROOT } from "../support/project.js";

/** `generate --watch`: change the card, see the output regenerated; break the schema, see the error; fix it, see it recover. */
describe("generate --watch", () => {
  it("regenerates on changes and survives a broken intermediate state", async () => {
    const dir = projectTempDir("watch-");
    copyFileSync(join(ROOT, "schema", "a2a-0.3.0.json"), join(dir, "a2a.json"));
    const card = (name: string) => ({
      protocolVersion: "0.3.0",
      name,
      description: "d",
      url: "http://127.0.0.1:3000/",
      version: "1",
      capabilities: {},
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [],
    });
    writeFileSync(join(dir, "card.json"), JSON.stringify(card("First")));
    writeFileSync(join(dir, "a2a-codegen.config.json"), JSON.stringify({ schema: "a2a.json", out: "out", card: "card.json", frameworks: ["node"] }));

    const child = spawn(process.execPath, [join(ROOT, "dist", "bin.cjs"), "generate", "--watch"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const waitFor = async (pattern: RegExp, from: number) => {
      const until = Date.now() + 20_000;
      while (!pattern.test(output.slice(from))) {
        if (Date.now() > until) throw new Error(`waited for ${pattern} in:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    try {
      await waitFor(/\[watch\] up to date/, 0);
      expect(readFileSync(join(dir, "out", "card.ts"), "utf8")).toMatch(/name: "First"/);

      let mark = output.length;
      writeFileSync(join(dir, "card.json"), JSON.stringify(card("Second")));
      await waitFor(/\[watch\] up to date/, mark);
      expect(readFileSync(join(dir, "out", "card.ts"), "utf8")).toMatch(/name: "Second"/);

      mark = output.length;
      const schema = readFileSync(join(dir, "a2a.json"), "utf8");
      writeFileSync(join(dir, "a2a.json"), schema.slice(0, 200));
      await waitFor(/a2a\.json: invalid JSON at line \d+, column \d+/, mark);
      await waitFor(/fix it and save/, mark);
      expect(readFileSync(join(dir, "out", "card.ts"), "utf8")).toMatch(/name: "Second"/); // the output survived

      mark = output.length;
      writeFileSync(join(dir, "card.json"), JSON.stringify({ ...card("Third"), capabilities: { streaming: "yes" } }));
      writeFileSync(join(dir, "a2a.json"), schema);
      await waitFor(/card\.json at \/capabilities\/streaming: not a valid A2A 0\.3\.0 agent card: \/capabilities\/streaming: expected boolean, got string/, mark);

      mark = output.length;
      writeFileSync(join(dir, "card.json"), JSON.stringify(card("Fourth")));
      await waitFor(/\[watch\] up to date/, mark);
      expect(readFileSync(join(dir, "out", "card.ts"), "utf8")).toMatch(/name: "Fourth"/);
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.on("exit", r));
    }
    expect(child.exitCode === 0 || child.signalCode === "SIGTERM").toBe(true);
  });
});
