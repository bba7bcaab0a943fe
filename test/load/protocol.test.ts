/**
 * The one front end (src/load/protocol.ts; issue 13 item 4): every way in (a bundled 0.x JSON Schema, the
 * bundled 1.0.1 proto, a user's JSON Schema file, a user's proto) goes through loadProtocol to
 * { source, normalized, overlay, ir }, and generate, diff and the regeneration report use it.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { loadProtocol, protocolIR } from "../../src/load/protocol.js";
import { ROOT, SCHEMA_DIR, tempDir } from "../support/project.js";

describe("loadProtocol", () => {
  it("a bundled 0.x version: its JSON Schema, normalized, its overlay file, the IR", () => {
    const loaded = loadProtocol({ spec: "0.3.0" });
    expect(loaded.source).toMatchObject({ displayPath: "schema/a2a-0.3.0.json", format: "json", bundledVersion: "0.3.0" });
    expect(Object.keys(loaded.normalized.definitions)).toContain("Message");
    expect(loaded.overlay.roles.send).toBe("message/send");
    expect(loaded.ir.specVersion).toBe("0.3.0");
    expect(loaded.ir.versionBasis).toBe("bundled");
  });

  it("the bundled 1.0.1 proto: the proto front end's schema and the facts it states (no overlay file)", () => {
    const loaded = loadProtocol({ spec: "1.0.1" });
    expect(loaded.source).toMatchObject({ displayPath: "schema/a2a-1.0.1.proto", format: "proto" });
    expect(loaded.source.text).toMatch(/^syntax = "proto3";/m);
    expect(loaded.overlay).toMatchObject({ version: "1.0.1", versionHeader: "A2A-Version", protoJson: true });
    expect(loaded.ir.methods.map((m) => m.method)).toContain("ListTasks");
  });

  it("a user's proto file: its version from its name, its facts from itself", () => {
    const dir = tempDir();
    copyFileSync(join(SCHEMA_DIR, "a2a-1.0.1.proto"), join(dir, "a2a-1.0.1.proto"));
    const loaded = loadProtocol({ schema: "a2a-1.0.1.proto", cwd: dir });
    expect(loaded.source.bundledVersion).toBeUndefined();
    expect(loaded.ir).toMatchObject({ specVersion: "1.0.1", versionBasis: "overlay" });
  });

  it("a user's JSON Schema: checked against the meta-schema, with the closest bundled version's facts", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "mine.json"), readFileSync(join(SCHEMA_DIR, "a2a-0.2.5.json")));
    expect(loadProtocol({ schema: "mine.json", cwd: dir }).ir).toMatchObject({ specVersion: "0.2.5", versionBasis: "closest-bundled" });
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ definitions: { A: { type: 42 } } }));
    expect(() => loadProtocol({ schema: "bad.json", cwd: dir })).toThrow(/bad\.json/);
  });

  it("generate and protocolIR give the IR loadProtocol gives", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "mine.json"), readFileSync(join(SCHEMA_DIR, "a2a-0.3.0.json")));
    const direct = loadProtocol({ schema: "mine.json", cwd: dir }).ir;
    expect(await protocolIR("mine.json", dir)).toEqual(direct);
    expect((await generate({ schema: "mine.json", cwd: dir, out: join(dir, "out") })).ir).toEqual(direct);
  });

  it("the front end decides: schema/load.ts reads files and imports no proto converter; diff loads without generating", () => {
    const imports = (file: string) => [...readFileSync(join(ROOT, file), "utf8").matchAll(/from "([^"]+)"/g)].map((m) => m[1]);
    expect(imports("src/schema/load.ts").filter((s) => s?.includes("proto"))).toEqual([]);
    expect(imports("src/load/protocol.ts")).not.toContain("../generate.js");
    expect(imports("src/generate.ts")).toContain("./load/protocol.js");
    expect(imports("src/generate.ts")).not.toContain("./ir/build.js");
    expect(imports("src/ir/build.ts").filter((s) => s?.startsWith("json-schema-to-typescript"))).toEqual([]);
  });
});
