import { readFileSync } from "node:fs";
import { STORE_DEPENDENCIES } from "./emit/stores.js";
import { nearestPackageJson } from "./frameworks.js";

/**
 * The npm packages an output imports that its project does not list, found as the frameworks are (the
 * nearest package.json from the output folder up): without them the output does not compile (gRPC needs
 * @grpc/grpc-js and protobufjs, a store its engine's client), so `generate` says which command installs them.
 */
export interface MissingPackages {
  /** Packages the output imports that the package.json does not list (sorted; may be empty when only types are missing). */
  dependencies: string[];
  /** Their type packages, for the devDependencies. */
  devDependencies: string[];
  /** The package.json read (undefined: none from the output folder up). */
  from: string | undefined;
  /** The command that installs them. */
  command: string;
}

/** The major versions the generated code is written against (the scaffold's ranges). */
const MAJORS: Record<string, string> = {
  "@grpc/grpc-js": "1",
  protobufjs: "8",
  express: "5",
  fastify: "5",
  hono: "4",
  "@hono/node-server": "1",
  "@opentelemetry/api": "1",
  ...Object.fromEntries(
    Object.values(STORE_DEPENDENCIES).flatMap((d) => Object.entries({ ...d.dependencies, ...d.devDependencies }).map(([name, range]) => [name, /\d+/.exec(range)?.[0] ?? ""])),
  ),
  "@types/express": "5",
};

/** Type packages a dependency needs in a strict project (the others ship their types). */
const TYPES: Record<string, string> = { pg: "@types/pg", express: "@types/express" };

/** The package a bare import specifier names (`protobufjs/light.js` → `protobufjs`); undefined for relative and node: ones. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Every package the files import (static imports and exports, dynamic imports). */
export function importedPackages(files: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const [path, text] of Object.entries(files)) {
    if (!path.endsWith(".ts")) continue;
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)"([^"]+)"/gm)) {
      const name = packageOf(match[1] as string);
      if (name !== undefined) names.add(name);
    }
  }
  return [...names].sort();
}

/** The packages the output imports that the nearest package.json does not list; undefined when none is missing. */
export function missingPackages(outDir: string, files: Record<string, string>): MissingPackages | undefined {
  const from = nearestPackageJson(outDir);
  const listed = new Set<string>();
  if (from !== undefined) {
    try {
      const manifest = JSON.parse(readFileSync(from, "utf8")) as Record<string, unknown>;
      for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
        const deps = manifest[field];
        if (typeof deps === "object" && deps !== null) for (const name of Object.keys(deps)) listed.add(name);
      }
      // The package itself (a checkout generating into its own tree).
      if (typeof manifest.name === "string") listed.add(manifest.name);
    } catch {
      // An unreadable package.json lists nothing.
    }
  }
  const imported = importedPackages(files);
  const dependencies = imported.filter((name) => !listed.has(name));
  const devDependencies = imported.map((name) => TYPES[name]).filter((name): name is string => name !== undefined && !listed.has(name));
  if (dependencies.length + devDependencies.length === 0) return undefined;
  const spec = (name: string) => (MAJORS[name] ? `${name}@${MAJORS[name]}` : name);
  const command = [
    ...(dependencies.length > 0 ? [`npm i ${dependencies.map(spec).join(" ")}`] : []),
    ...(devDependencies.length > 0 ? [`npm i -D ${devDependencies.map(spec).join(" ")}`] : []),
  ].join(" && ");
  return { dependencies, devDependencies, from, command };
}
