/**
 * The web frameworks a server adapter is generated for: a leaf module (no imports), so that the CLI's
 * unchanged-input path and the config reader can check a framework name without loading the emitters.
 */
export { FRAMEWORKS, type Framework } from "../options/vocabularies.js";
