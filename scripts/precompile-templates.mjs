#!/usr/bin/env node
// Part of `npm run build`: compiles every bundled Handlebars template (templates/**/*.hbs) to its template
// spec and writes the table to dist/templates.precompiled.json, which a generation reads instead of
// loading Handlebars' compiler (src/emit/templates.ts). Run after tsc (it uses dist/).
import { writeFileSync } from "node:fs";
import { PRECOMPILED_TEMPLATES_FILE, precompileBundledTemplates } from "../dist/emit/templates.js";

const table = precompileBundledTemplates();
writeFileSync(PRECOMPILED_TEMPLATES_FILE, JSON.stringify(table) + "\n");
console.log(`precompiled ${Object.keys(table).length} templates into dist/templates.precompiled.json`);
