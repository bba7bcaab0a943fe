/**
 * The report of `a2a-codegen verify`: a table for people, JSON for scripts, JUnit XML for CI dashboards.
 */
import type { VerifyReport } from "./verify.js";

const MARK = { pass: "ok", fail: "FAIL", skip: "skip" } as const;

/** One line per check: outcome, level, id, section, what it checks, and what was seen. */
export function renderTable(report: VerifyReport): string {
  const rows = report.results.map((r) => [MARK[r.outcome], r.level, r.id, r.section, r.title + (r.detail ? `\n      ${r.outcome === "skip" ? "skipped" : "seen"}: ${r.detail}` : "")]);
  const widths = [4, 6, Math.max(...rows.map((r) => (r[2] as string).length), 5), Math.max(...rows.map((r) => (r[3] as string).length), 7)];
  const line = (cells: string[]) => cells.map((c, i) => (i < 4 ? c.padEnd(widths[i] as number) : c)).join("  ");
  const count = (o: string, level?: string) => report.results.filter((r) => r.outcome === o && (level === undefined || r.level === level)).length;
  return [
    `a2a-codegen verify ${report.agentUrl} (the checks of A2A ${report.version})`,
    line(["", "level", "check", "section", "requirement"]),
    ...rows.map(line),
    ...report.notes.map((note) => `note: ${note}`),
    `${count("pass")} passed, ${count("fail", "MUST")} MUST failed, ${count("fail", "SHOULD")} SHOULD failed, ${count("skip")} skipped`,
  ].join("\n");
}

export function renderJson(report: VerifyReport): string {
  return JSON.stringify(report, null, 2);
}

const xml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** JUnit XML: one test suite per scope (card, JSONRPC, HTTP+JSON, GRPC), one test case per check. */
export function renderJunit(report: VerifyReport): string {
  const scopes = [...new Set(report.results.map((r) => r.scope))];
  const suites = scopes.map((scope) => {
    const cases = report.results.filter((r) => r.scope === scope);
    const failures = cases.filter((r) => r.outcome === "fail").length;
    const skipped = cases.filter((r) => r.outcome === "skip").length;
    const body = cases
      .map((r) => {
        const open = `    <testcase classname="a2a.${xml(scope)}" name="${xml(`${r.id} [${r.level} ${r.spec === "1.0.1" ? "" : `${r.spec} `}${r.section}] ${r.title}`)}"`;
        if (r.outcome === "pass") return `${open}/>`;
        if (r.outcome === "skip") return `${open}>\n      <skipped message="${xml(r.detail)}"/>\n    </testcase>`;
        return `${open}>\n      <failure type="${r.level}" message="${xml(r.detail)}"/>\n    </testcase>`;
      })
      .join("\n");
    return `  <testsuite name="a2a-codegen verify ${xml(scope)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}">\n${body}\n  </testsuite>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="a2a-codegen verify ${xml(report.agentUrl)}">\n${suites.join("\n")}\n</testsuites>\n`;
}
