import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { migratingDoc, MIGRATING_DOC, renderMigrationRules } from "../../src/migrate/doc.js";
import { migrationRules } from "../../src/migrate/rules.js";

describe("docs/migrating.md", () => {
  it("its list of shape changes is the rendering of the rules migrate runs on (rewrite it with writeMigratingDoc when this fails)", () => {
    const doc = readFileSync(MIGRATING_DOC, "utf8");
    expect(doc, "docs/migrating.md is stale: node -e 'import(\"./dist/migrate/doc.js\").then((m) => m.writeMigratingDoc())'").toBe(migratingDoc(doc));
  });

  it("the list comes from the derived data: a change of the mapping changes it", () => {
    const text = renderMigrationRules();
    const rules = migrationRules("0.3.0", "1.0.1");
    // Every type rename, enum value and client method the rules have is listed.
    for (const [a, b] of rules.types) expect(text).toContain(`\`${a}\` → \`${b}\``);
    for (const [a, b] of rules.methods) expect(text).toContain(`\`${a}()\` → \`${b}()\``);
    for (const e of rules.enums.values()) for (const [a, b] of Object.entries(e.values)) expect(text).toContain(`\`"${a}"\` → \`"${b}"\``);
    expect(text).toContain("`blocking` → `returnImmediately` (negated)");
    expect(text).toMatch(/### 0\.1\.0 → 0\.2\.0\n\nRefused: /);
  });
});
