/**
 * One declaration of runtime bundles (issue 28 item 3): every file of src/runtime is brought by a bundle,
 * the core's files by no other, and an output gets exactly the files of the bundles its options choose.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleEntryFiles, RUNTIME_BUNDLES, RUNTIME_DIR, runtimeFiles } from "../../src/emit/runtime-bundles.js";
import { generate } from "../../src/generate.js";

function allRuntimeFiles(dir = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(RUNTIME_DIR, dir)).sort()) {
    const path = dir === "" ? name : `${dir}/${name}`;
    if (statSync(join(RUNTIME_DIR, path)).isDirectory()) out.push(...allRuntimeFiles(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("runtime bundles", () => {
  const owners = new Map<string, string[]>();
  for (const bundle of RUNTIME_BUNDLES) for (const file of bundle.brings.flatMap(bundleEntryFiles)) owners.set(file, [...(owners.get(file) ?? []), bundle.feature]);

  it("every runtime file belongs to a bundle, and every file a bundle names exists", () => {
    const files = allRuntimeFiles();
    expect(files.filter((f) => !owners.has(f))).toEqual([]);
    expect([...owners.keys()].filter((f) => !files.includes(f))).toEqual([]);
  });

  it("a file is in one bundle, except the files the store engines share", () => {
    const shared = [...owners].filter(([, features]) => features.length > 1);
    expect(shared.map(([f]) => f).sort()).toEqual(["stores/follower.ts", "stores/patch-policy.ts"]);
    for (const [, features] of shared) expect(features.every((f) => /store \(--store/.test(f))).toBe(true);
  });

  it("an output has the runtime files of its chosen bundles, and no optional one it did not choose", async () => {
    const plain = await generate({ spec: "1.0.1", frameworks: ["node"] });
    const runtime = (files: Record<string, string>) => Object.keys(files).filter((f) => f.startsWith("runtime/"));
    expect(runtime(plain.files).filter((f) => /^runtime\/(grpc|compat)\/|^runtime\/card\/signature|^runtime\/adapters\/web|shapes-0\.3\.0|postgres|redis/.test(f))).toEqual([]);
    const full = await generate({ spec: "1.0.1", frameworks: ["hono"], transports: ["grpc"], stores: ["redis"], cardSignatures: true, compat: "0.3.0" });
    const chosen = runtimeFiles({ specVersion: "1.0.1", compat: "0.3.0", cardSignatures: true, transports: ["grpc"], stores: ["redis"], frameworks: ["hono"] }, "");
    // Every file of a non-prunable bundle is there; prunable ones only where the output imports them.
    for (const path of Object.keys(chosen.files).filter((p) => !chosen.prunable.has(p))) expect(full.files[path], path).toBeDefined();
    expect(full.files["runtime/adapters/web.ts"]).toBeDefined();
    expect(full.files["runtime/wire/shapes-0.3.0.ts"]).toBeDefined();
  });
});
