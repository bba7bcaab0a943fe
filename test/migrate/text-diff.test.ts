import { describe, expect, it } from "vitest";
import { merge3, unifiedDiff } from "../../src/migrate/text-diff.js";

describe("unified diff", () => {
  it("prints hunks with three lines of context, deletions before additions", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h", "i"].map((l) => `${l}\n`).join("");
    const after = before.replace("e\n", "E\n");
    expect(unifiedDiff("x.ts", before, after)).toBe("--- a/x.ts\n+++ b/x.ts\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
    expect(unifiedDiff("x.ts", before, before)).toBe("");
  });
});

describe("three-way merge of the scaffold's files", () => {
  const base = "import a;\n\nfunction start() {\n  listen();\n}\n\nexport {};\n";
  it("takes the new scaffold's changes and keeps the user's where they do not overlap", () => {
    const ours = base.replace("  listen();\n", "  listen();\n  health();\n");
    const theirs = base.replace("import a;\n", "import b;\n");
    expect(merge3(base, ours, theirs, { ours: "yours", theirs: "new" })).toEqual({ text: "import b;\n\nfunction start() {\n  listen();\n  health();\n}\n\nexport {};\n", conflicts: 0 });
  });

  it("marks a conflict where both changed the same lines differently", () => {
    const ours = base.replace("  listen();\n", "  listen(8080);\n");
    const theirs = base.replace("  listen();\n", "  serve();\n");
    const merged = merge3(base, ours, theirs, { ours: "yours", theirs: "new" });
    expect(merged.conflicts).toBe(1);
    expect(merged.text).toBe("import a;\n\nfunction start() {\n<<<<<<< yours\n  listen(8080);\n=======\n  serve();\n>>>>>>> new\n}\n\nexport {};\n");
  });

  it("an unedited file becomes the new one", () => {
    const theirs = "import c;\n";
    expect(merge3(base, base, theirs, { ours: "o", theirs: "t" })).toEqual({ text: theirs, conflicts: 0 });
  });
});
