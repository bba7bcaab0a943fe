/**
 * One name per error (issue 28 item 5): in every bundled version, each A2A error is one class,
 * `A2A<Name>Error`, declared once in errors.ts and the same on both sides: the server's (server/core.ts
 * re-exports it, thrown by an executor) and the client's (client.ts re-exports it, what a call rejects with). The specification's name (`TaskNotFoundError`) means one thing only, the
 * error object's type in models.ts (0.x) and its key in A2A_ERROR_CODES; no module a user imports declares a
 * class under it, and index.ts exports each error name once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { errorClasses, errorClassName } from "../../src/emit/error-classes.js";
import type { ProtocolIR } from "../../src/ir/types.js";
import { exportedNames } from "../../src/emit/index-file.js";
import { GENERATED } from "../support/project.js";

const VERSIONS = readdirSync(GENERATED).filter((name) => name.startsWith("a2a-")).sort();
const read = (version: string, file: string): string => readFileSync(join(GENERATED, version, file), "utf8");

/** The classes a generated module declares itself (`export class X`). */
function declaredClasses(text: string): string[] {
  return [...text.matchAll(/^export\s+class\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1] as string);
}

/** The errors of the version's table, by the specification's name, read from protocol.ts's A2A_ERROR_CODES. */
function errorTable(version: string): Map<string, number> {
  const protocol = read(version, "protocol.ts");
  const table = /^export const A2A_ERROR_CODES = \{([\s\S]*?)^\} as const;/m.exec(protocol) ?? /^export const A2A_ERROR_CODES = \{([\s\S]*?)^\};/m.exec(protocol);
  if (!table) throw new Error(`${version}/protocol.ts has no A2A_ERROR_CODES`);
  const body = (table[1] as string).replace(/\/\*\*[\s\S]*?\*\//g, "");
  return new Map([...body.matchAll(/^\s*"?([A-Za-z]\w*)"?:\s*(-?\d+),?$/gm)].map((m) => [m[1] as string, Number(m[2])]));
}

describe.each(VERSIONS)("%s: one name per error", (version) => {
  const errors = errorTable(version);
  const index = read(version, "index.ts");
  const modules = [...index.matchAll(/^export \* from "\.\/(.+)\.js";$/gm)].map((m) => `${m[1] as string}.ts`);
  const serverCore = read(version, "server/core.ts");
  const client = read(version, "client.ts");

  it("has an error table and an index that re-exports the client", () => {
    expect(errors.size).toBeGreaterThanOrEqual(5);
    expect(modules).toContain("client.ts");
    expect(modules).toContain("models.ts");
  });

  it("errors.ts declares one class per error; the server and the client declare none of their own", () => {
    const expected = [...errors.keys()].map(errorClassName).sort();
    expect(declaredClasses(read(version, "errors.ts")).sort()).toEqual(expected);
    expect(declaredClasses(serverCore).filter((name) => expected.includes(name))).toEqual([]);
    expect(declaredClasses(client).filter((name) => expected.includes(name))).toEqual([]);
  });

  it("the specification's name of an error is never a class (only the error object's type in models.ts)", () => {
    const specNames = new Set(errors.keys());
    const files = [...modules, "server/core.ts", ...readdirSync(join(GENERATED, version, "server")).map((f) => `server/${f}`)];
    for (const file of new Set(files)) {
      const clashes = declaredClasses(read(version, file)).filter((name) => specNames.has(name));
      expect(clashes, `${version}/${file}`).toEqual([]);
    }
    for (const entry of exportedNames(serverCore)) expect(specNames.has(entry.name), `server/core.ts exports ${entry.name}`).toBe(false);
  });

  it("index.ts exports every error name once: the modules it re-exports declare no error name twice", () => {
    const names = [...errors.keys()].flatMap((spec) => [spec, errorClassName(spec), `is${spec}`]);
    const declaredBy = new Map<string, string[]>();
    for (const file of modules) {
      for (const entry of exportedNames(read(version, file))) {
        if (!names.includes(entry.name)) continue;
        declaredBy.set(entry.name, [...(declaredBy.get(entry.name) ?? []), file]);
      }
    }
    const twice = [...declaredBy].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
    // Every error's class reaches a user of index.ts (from errors.ts).
    for (const spec of errors.keys()) expect(declaredBy.get(errorClassName(spec)), spec).toEqual(["errors.ts"]);
  });

  it("at run time, the server's and the client's class of each code are one class; the client's calls reject with it", async () => {
    const server = (await import(join(GENERATED, version, "server", "core.ts"))) as Record<string, unknown>;
    const clientModule = (await import(join(GENERATED, version, "client.ts"))) as Record<string, unknown>;
    type ErrorClass = (new (...args: never[]) => Error) & { code: number };
    for (const [spec, code] of errors) {
      const name = errorClassName(spec);
      const serverClass = server[name] as ErrorClass;
      const clientClass = clientModule[name] as ErrorClass;
      expect(serverClass.code, `${name} (server)`).toBe(code);
      expect(clientClass, `${name}: one class on both sides`).toBe(serverClass);
      const thrown = new (serverClass as unknown as new () => Error & { code: number })();
      expect(thrown).toBeInstanceOf(server["A2AError"] as new () => Error);
      expect([thrown.name, thrown.code]).toEqual([name, code]);
      // What a transport makes of an error response with this code: the class, `method` set.
      const receivedError = clientModule["receivedError"] as (method: string, error: { code: number; message: string }) => Error & { code: number; method?: string };
      const received = receivedError("tasks/get", { code, message: "m" });
      expect(received).toBeInstanceOf(clientClass as unknown as new () => Error);
      expect(received).toBeInstanceOf(clientModule["A2AError"] as new () => Error);
      expect([received.name, received.code, received.method, received.message]).toEqual([name, code, "tasks/get", "m"]);
      expect(server[spec], `server/core.ts must not export ${spec}`).toBeUndefined();
    }
  });
});

describe("errorClasses: a definition whose class name is taken is refused, naming it", () => {
  const ir = (...names: string[]): ProtocolIR =>
    ({ source: { file: "schema.json" }, errors: names.map((name, i) => ({ name, code: -32001 - i, description: undefined })) }) as unknown as ProtocolIR;

  it("names each error's class once, from the definition", () => {
    expect(errorClasses(ir("TaskNotFoundError", "UnsupportedOperation")).map((e) => [e.definition, e.className, e.message])).toEqual([
      ["TaskNotFoundError", "A2ATaskNotFoundError", "Task Not Found"],
      ["UnsupportedOperation", "A2AUnsupportedOperationError", "Unsupported Operation"],
    ]);
  });
  it("a class the server already has (ServerError → A2AServerError)", () => {
    expect(() => errorClasses(ir("ServerError"))).toThrow(/error definition "ServerError" would be the server's error class "A2AServerError", which the server already has/);
  });
  it("a class the client already has (TransportError → A2ATransportError)", () => {
    expect(() => errorClasses(ir("TransportError"))).toThrow(/would be the client's error class "A2ATransportError", which the client already has/);
  });
  it("two definitions of one class", () => {
    expect(() => errorClasses(ir("TaskNotFound", "TaskNotFoundError"))).toThrow(/error definitions "TaskNotFound" and "TaskNotFoundError" would both be/);
  });
});
