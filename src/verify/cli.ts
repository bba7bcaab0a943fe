/** `a2a-codegen verify`: runs the checks and prints the report (loaded only for this command). */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CliIo } from "../cli-up-to-date.js";
import { CodegenError, EXIT_CODES } from "../errors.js";
import type { Level, Scope } from "./checks.js";
import { renderJson, renderJunit, renderTable } from "./report.js";
import { verifyAgent } from "./verify.js";

export interface VerifyArgs {
  url: string;
  /** MUST, SHOULD (empty: both). */
  levels: readonly string[];
  /** jsonrpc, rest, grpc (empty: every binding of the card). */
  bindings: readonly string[];
  /** Credentials, as given (`--auth`, at most two). */
  auth: readonly string[];
  json: boolean;
  junit?: string | undefined;
  /** `--timeout` as given (milliseconds). */
  timeout?: string | undefined;
}

const SCOPE_OF_FLAG: Record<string, Scope> = { jsonrpc: "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" };

/** Exit 0 when no MUST check failed, 1 when one did. */
export async function runVerify(args: VerifyArgs, io: CliIo): Promise<number> {
  let url: URL;
  try {
    url = new URL(args.url);
  } catch {
    throw new CodegenError(`not a URL: ${JSON.stringify(args.url)} (give the agent's base URL, e.g. http://localhost:3000)`, { kind: "usage" });
  }
  if (args.auth.length > 2) throw new CodegenError(`--auth given ${args.auth.length} times: give one credential, or two to check owner scoping`, { kind: "usage" });
  const blank = args.auth.findIndex((value) => value.trim() === "");
  if (blank >= 0) throw new CodegenError(`--auth number ${blank + 1} is empty: give a token, \`Header: value\` or env:NAME`, { kind: "usage" });
  const timeoutMs = args.timeout === undefined ? undefined : Number(args.timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0)) throw new CodegenError(`--timeout ${JSON.stringify(args.timeout)}: give a whole number of milliseconds above 0, e.g. --timeout 30000`, { kind: "usage" });
  const report = await verifyAgent(url.href, {
    levels: args.levels.length > 0 ? (args.levels as Level[]) : undefined,
    bindings: args.bindings.length > 0 ? args.bindings.map((b): Scope => SCOPE_OF_FLAG[b] ?? "JSONRPC") : undefined,
    auth: args.auth,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  io.out(args.json ? renderJson(report) : renderTable(report));
  if (args.junit !== undefined) writeFileSync(resolve(args.junit), renderJunit(report));
  // 1: a MUST requirement failed (as a test runner exits on a failed test).
  return report.failed ? 1 : EXIT_CODES.ok;
}
