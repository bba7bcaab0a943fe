/**
 * The input modes an agent accepts (its card's `defaultInputModes` and its skills' `inputModes`) and the
 * media type of a message part, so that a part the agent does not accept is refused with
 * ContentTypeNotSupportedError (1.0.1 §3.3.2 / the error table; 0.3.0 §8.2, -32005).
 */
import { A2AError } from "../a2a-error.js";
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolProfile } from "../profile.js";

/**
 * Refuses a message with a part whose media type the agent does not accept (its card's defaultInputModes
 * or a skill's inputModes) with ContentTypeNotSupportedError; a card naming no input modes accepts any.
 * The card's input modes are read once, like the rest of the card (its interfaces, its served copy).
 */
export class InputModeCheck {
  private readonly accepted: string[] | undefined;
  /** A few media types come again and again (text/plain); the cache stays small whatever clients send. */
  private readonly verdicts = new Map<string, boolean>();
  private readonly profile: ProtocolProfile;

  constructor(card: JsonObject, profile: ProtocolProfile) {
    this.profile = profile;
    this.accepted = acceptedInputModes(card);
  }

  check(message: JsonObject): void {
    // Only where the version has the error (0.2+; 0.1.0's table has none, so there the executor decides).
    const code = this.profile.errorCodes["ContentTypeNotSupported"];
    const accepted = this.accepted;
    if (code === undefined || accepted === undefined || !Array.isArray(message["parts"])) return;
    for (const [index, part] of message["parts"].entries()) {
      if (!isObject(part)) continue;
      const type = partMediaType(part, this.profile.discriminatorField);
      if (type === undefined) continue;
      let ok = this.verdicts.get(type);
      if (ok === undefined) {
        ok = acceptsMediaType(accepted, type);
        if (this.verdicts.size < 64) this.verdicts.set(type, ok);
      }
      if (ok) continue;
      throw new A2AError(code, `Part ${index} is ${type}, which this agent does not accept (it accepts ${accepted.join(", ")})`, {
        pointer: `/params/message/parts/${index}`,
        mediaType: type,
        accepted,
      });
    }
  }
}

/** The media types the card accepts as input (default modes and every skill's), or undefined when it names none. */
export function acceptedInputModes(card: JsonObject): string[] | undefined {
  const modes = new Set<string>();
  let named = false;
  const add = (list: unknown) => {
    if (!Array.isArray(list)) return;
    named = true;
    for (const mode of list) if (typeof mode === "string") modes.add(mode);
  };
  add(card["defaultInputModes"]);
  if (Array.isArray(card["skills"])) for (const skill of card["skills"]) if (isObject(skill)) add(skill["inputModes"]);
  return named ? [...modes] : undefined;
}

/**
 * The media type of a part: a text part is text/plain and a data part application/json unless the part
 * says otherwise (1.0 `mediaType`); a file part its `mimeType`/`mediaType` (undefined when it names none).
 */
export function partMediaType(part: JsonObject, discriminatorField: string | undefined): string | undefined {
  if (typeof part["mediaType"] === "string" && part["mediaType"] !== "") return part["mediaType"];
  const kind = discriminatorField ? part[discriminatorField] : "text" in part ? "text" : "data" in part ? "data" : "file";
  if (kind === "text") return "text/plain";
  if (kind === "data") return "application/json";
  const file = isObject(part["file"]) ? part["file"] : part;
  for (const key of ["mimeType", "mediaType"]) if (typeof file[key] === "string" && file[key] !== "") return file[key] as string;
  return undefined;
}

/**
 * Whether a media type is among the accepted ones: exact, `type/*` or `*\/*`; parameters and case ignored.
 * A mode that is a bare type with no subtype (`text`, as 0.1.0's schema default and many real cards have
 * it) is read as `type/*`: `text` accepts `text/plain` and `text/markdown` (docs/interop.md).
 */
export function acceptsMediaType(accepted: readonly string[], mediaType: string): boolean {
  const bare = (type: string) => (type.split(";")[0] ?? "").trim().toLowerCase();
  const wanted = bare(mediaType);
  const major = wanted.split("/")[0];
  return accepted.some((mode) => {
    const m = bare(mode);
    if (m !== "" && m !== "*" && !m.includes("/")) return m === major;
    return m === wanted || m === "*/*" || m === "*" || (m.endsWith("/*") && m.slice(0, -2) === major);
  });
}

/** The media type to suggest for a mode that is not one (`text` → `text/plain`), by its bare type. */
const SUGGESTED_MEDIA_TYPES: Readonly<Record<string, string>> = {
  text: "text/plain",
  data: "application/json",
  json: "application/json",
  file: "application/octet-stream",
  image: "image/*",
  audio: "audio/*",
  video: "video/*",
};

/**
 * A warning for each input or output mode of a card that is not a media type (1.0.1 §4.4.1: modes are
 * media types), naming where it is and suggesting one; such a mode is still read (a bare type as `type/*`).
 */
export function modeWarnings(card: unknown): string[] {
  if (!isObject(card)) return [];
  const warnings: string[] = [];
  const check = (list: unknown, pointer: string) => {
    if (!Array.isArray(list)) return;
    for (const [i, mode] of list.entries()) {
      if (typeof mode !== "string" || mode === "*" || /^[^\s/;]+\/[^\s/;]+(\s*;.*)?$/.test(mode.trim())) continue;
      const suggestion = SUGGESTED_MEDIA_TYPES[mode.trim().toLowerCase()] ?? (mode.includes("/") ? undefined : `${mode.trim().toLowerCase()}/*`);
      const reading = mode.includes("/") || mode.trim() === "" ? "" : ` (read as ${mode.trim().toLowerCase()}/*)`;
      warnings.push(`agent card ${pointer}/${i}: "${mode}" is not a media type${reading}; modes are media types (A2A 1.0.1 §4.4.1)${suggestion ? `: did you mean "${suggestion}"?` : ""}`);
    }
  };
  for (const key of ["defaultInputModes", "defaultOutputModes"]) check(card[key], `/${key}`);
  if (Array.isArray(card["skills"])) {
    for (const [s, skill] of card["skills"].entries()) {
      if (!isObject(skill)) continue;
      for (const key of ["inputModes", "outputModes"]) check(skill[key], `/skills/${s}/${key}`);
    }
  }
  return warnings;
}
