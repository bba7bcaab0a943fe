import { describe, expect, it } from "vitest";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codegenSpec } from "../../src/scaffold/codegen-spec.js";
import { ROOT, tempDir } from "../support/project.js";

/**
 * The a2a-codegen dependency `init` writes into the scaffold's package.json (issue 14): it must install
 * from wherever the running copy came from, before a2a-codegen is on the registry as well as after. The
 * layouts below are the ones npm leaves: a project (or npx's cache folder, or a global prefix) with the
 * package in node_modules and its lockfile entry saying where it was resolved from.
 */
function installed(resolved: string | undefined): { project: string; root: string } {
  const project = realpathSync(tempDir("a2a-codegen-spec-"));
  const root = join(project, "node_modules", "a2a-codegen");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "a2a-codegen", version: "0.4.2" }));
  if (resolved !== undefined) {
    const lock = { lockfileVersion: 3, packages: { "": {}, "node_modules/a2a-codegen": { version: "0.4.2", resolved } } };
    writeFileSync(join(project, "node_modules", ".package-lock.json"), JSON.stringify(lock));
  }
  return { project, root };
}

describe("the a2a-codegen dependency of a scaffold", () => {
  it("installed from the registry: the registry range of the installed version", () => {
    const { root } = installed("https://registry.npmjs.org/a2a-codegen/-/a2a-codegen-0.4.2.tgz");
    expect(codegenSpec(root)).toEqual({ spec: "^0.4.2", source: "registry" });
  });

  it("installed from a tarball (npx ./a2a-codegen-0.4.2.tgz): that tarball, resolved against the lockfile's project", () => {
    const { project, root } = installed("file:../a2a-codegen-0.4.2.tgz");
    const tarball = join(project, "..", "a2a-codegen-0.4.2.tgz");
    writeFileSync(tarball, "");
    expect(codegenSpec(root)).toEqual({ spec: `file:${realpathSync(tarball)}`, source: "tarball" });
  });

  it("installed from a tarball that is gone, or with no lockfile (a global install): the package folder, which init packs into the project", () => {
    // An installed copy's folder is a path on this machine only (and npm may try to build it): init packs it
    // into the project's vendor/ folder instead (issue 29, item 15).
    const gone = installed("file:../no-such-a2a-codegen.tgz");
    expect(codegenSpec(gone.root)).toEqual({ spec: `file:${gone.root}`, source: "folder", installable: false });
    const unlocked = installed(undefined);
    writeFileSync(join(unlocked.root, "package.json"), JSON.stringify({ name: "a2a-codegen", version: "0.4.2" }));
    expect(codegenSpec(unlocked.root)).toEqual({ spec: `file:${unlocked.root}`, source: "folder", installable: false });
  });

  it("a checkout (this repository): the checkout, which npm can build", () => {
    expect(codegenSpec(ROOT)).toEqual({ spec: `file:${realpathSync(ROOT)}`, source: "folder", installable: true });
  });
});
