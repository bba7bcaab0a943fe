import type { LossReason, LossyField, VersionMapping } from "../runtime/compat/converter.js";

const REASONS: Record<LossReason, string> = {
  "no-field": "dropped: no such field",
  value: "a value it cannot hold",
  missing: "may be missing",
  defaulted: "filled in when absent",
};

/**
 * The lossy fields of a mapping as Markdown: one table per direction (the README's "what does not survive
 * the round trip" section is this text, checked by test/compat/lossy-table.test.ts).
 */
export function renderLossyTable(mapping: VersionMapping): string {
  const lines: string[] = [];
  const directions: Array<[LossyField["direction"], string, string]> = [
    ["toPrimary", mapping.compat, mapping.primary],
    ["toCompat", mapping.primary, mapping.compat],
  ];
  for (const [direction, from, to] of directions) {
    lines.push(`**${from} → ${to}**`, "", `| ${from} object | field | what happens | why |`, "| --- | --- | --- | --- |");
    for (const l of mapping.lossy.filter((x) => x.direction === direction)) {
      const object = l.source === l.target ? `\`${l.source}\`` : `\`${l.source}\` (as \`${l.target}\`)`;
      lines.push(`| ${object} | ${l.field === "" ? "(value)" : `\`${l.field}\``} | ${REASONS[l.reason]} | ${l.note.replace(/\|/g, "\\|")} |`);
    }
    lines.push("");
  }
  if (mapping.primaryOnly.length > 0 || mapping.compatOnly.length > 0) {
    const only = [
      ...mapping.primaryOnly.map((m) => `\`${m}\` (${mapping.primary} only)`),
      ...mapping.compatOnly.map((m) => `\`${m}\` (${mapping.compat} only)`),
    ];
    lines.push(`Methods without a counterpart: ${only.join(", ")}.`, "");
  }
  const codes = [
    ...mapping.errorCodesOnly.primary.map((e) => `${e.code} \`${e.name}\` (${mapping.primary} only)`),
    ...mapping.errorCodesOnly.compat.map((e) => `${e.code} \`${e.name}\` (${mapping.compat} only)`),
  ];
  if (codes.length > 0) lines.push(`Error codes without a counterpart, kept as they are (a client of the other version sees a plain JSON-RPC error): ${codes.join(", ")}.`, "");
  return lines.join("\n");
}
