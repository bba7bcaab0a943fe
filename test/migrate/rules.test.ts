import { describe, expect, it } from "vitest";
import { TABLE_0_3_TO_1_0 } from "../../src/compat/table.js";
import { migrationRules } from "../../src/migrate/rules.js";
import { rewrite } from "./support.js";

describe("migration rules are derived data, not a table per version pair", () => {
  it("0.3.0 → 1.0.1 takes every field rename of the compat table, with its transform", () => {
    const rules = migrationRules("0.3.0", "1.0.1");
    expect(rules.source).toBe("mapping");
    for (const r of TABLE_0_3_TO_1_0.renames) {
      const rule = rules.objects.get(r.compat);
      expect(rule?.renames, `${r.compat}.${r.field}`).toContainEqual(expect.objectContaining({ from: r.field, to: r.to, ...(r.toPrimary ? { transform: r.toPrimary } : {}) }));
    }
  });

  it("a type several new types correspond to is reported, not renamed (0.3 TaskIdParams is 1.0.1's CancelTaskRequest or SubscribeToTaskRequest, §3.1.5, §3.1.6)", () => {
    const rules = migrationRules("0.3.0", "1.0.1");
    expect(rules.types.has("TaskIdParams")).toBe(false);
    expect(rules.ambiguous.get("TaskIdParams")).toEqual(expect.arrayContaining(["CancelTaskRequest", "SubscribeToTaskRequest"]));
    const result = rewrite(`import type { TaskIdParams } from "../../generated/a2a-0.3.0/models.js";\nexport const p: TaskIdParams = { id: "t" };\n`, "0.3.0", "1.0.1");
    expect(result.unchanged).toEqual([expect.objectContaining({ line: 2, old: "TaskIdParams", new: expect.stringContaining("CancelTaskRequest"), hint: expect.stringContaining("use the one of the method") })]);
  });

  it("a pair without a compat table takes its rules from the IR diff: 0.2.1 → 0.2.2 renames JSONRPCResult (0.2.2's JSONRPCSuccessResponse)", () => {
    const rules = migrationRules("0.2.1", "0.2.2");
    expect(rules.source).toBe("diff");
    const out = rewrite(`import type { JSONRPCResult } from "../../generated/a2a-0.2.1/models.js";\nexport type R = JSONRPCResult;\n`, "0.2.1", "0.2.2").after;
    expect(out).toBe(`import type { JSONRPCSuccessResponse } from "../../generated/a2a-0.2.2/models.js";\nexport type R = JSONRPCSuccessResponse;\n`);
  });

  it("refuses unknown versions and a pair whose diff only a compat table can settle, naming what is missing", () => {
    expect(() => migrationRules("0.3.0", "9.9.9")).toThrow(/unknown version "9\.9\.9"; bundled versions: /);
    expect(() => migrationRules("0.2.5", "1.0.1")).toThrow(/no mapping from 0\.2\.5 to 1\.0\.1: no compat table pairs them \(src\/compat\/tables\.ts\), and their IR diff has changes only a table can settle: .*Part tells its members apart by presence instead of tag "kind"/);
  });
});
