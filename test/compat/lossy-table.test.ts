import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderLossyTable } from "../../src/compat/lossy-table.js";
import { ROOT } from "../support/project.js";
import { derived } from "../support/compat/mapping.js";

/** docs/compat.md's "what does not survive the round trip" section is the mapping's LOSSY_FIELDS, rendered. */
describe("docs/compat.md: the lossy fields of the 0.3.0 ↔ 1.0.1 mapping", () => {
  it("the section between the markers is the rendering of the derived mapping's lossy table", () => {
    const doc = readFileSync(join(ROOT, "docs", "compat.md"), "utf8");
    const m = /<!-- compat-lossy:start -->\n([\s\S]*?)<!-- compat-lossy:end -->/.exec(doc);
    expect(m, "docs/compat.md has no compat-lossy section").not.toBeNull();
    expect(m?.[1]).toBe(renderLossyTable(derived().mapping));
  });

  it("lists every field one side has and the other does not, among them the known ones", () => {
    const lossy = derived().mapping.lossy.map((l) => `${l.direction} ${l.source} ${l.field} ${l.reason}`);
    expect(lossy).toEqual(
      expect.arrayContaining([
        "toPrimary TaskStatusUpdateEvent final no-field",
        "toPrimary TaskQueryParams metadata no-field",
        "toCompat Part (text) mediaType no-field",
        "toCompat SendMessageRequest tenant no-field",
        "toCompat ListTaskPushNotificationConfigsResponse nextPageToken no-field",
        "toCompat Task contextId missing",
        'toCompat Role "ROLE_UNSPECIFIED" value',
      ]),
    );
    // Lossless both ways, so absent: renamed and inverted fields, state and role spellings, kind tags.
    for (const field of ["blocking", "returnImmediately", "kind", "state", "role", "pushNotificationConfig", "taskPushNotificationConfig"]) {
      expect(lossy.filter((l) => l.split(" ")[2] === field)).toEqual([]);
    }
  });
});
