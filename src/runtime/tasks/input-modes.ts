/**
 * The input modes an agent accepts (its card's `defaultInputModes` and its skills' `inputModes`) and the
 * media type of a message part, so that a part the agent does not accept is refused with
 * ContentTypeNotSupportedError (1.0.1 §3.3.2 / the error table; 0.3.0 §8.2, -32005).
 */
import { isObject, type JsonObject } from "../json.js";

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

/** Whether a media type is among the accepted ones: exact, `type/*` or `*\/*`; parameters and case ignored. */
export function acceptsMediaType(accepted: readonly string[], mediaType: string): boolean {
  const bare = (type: string) => (type.split(";")[0] ?? "").trim().toLowerCase();
  const wanted = bare(mediaType);
  const major = wanted.split("/")[0];
  return accepted.some((mode) => {
    const m = bare(mode);
    return m === wanted || m === "*/*" || m === "*" || (m.endsWith("/*") && m.slice(0, -2) === major);
  });
}
