// The transports' vocabulary is declared in options/vocabularies.ts; this module keeps the old import path
// for the modules that still use it (scaffold/init.ts, generate.ts).
export { bindingsOfVersion, TRANSPORTS, type BindingName, type Transport } from "./options/vocabularies.js";
