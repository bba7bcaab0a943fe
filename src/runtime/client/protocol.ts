/**
 * What the generated client needs to know about its version beyond the method table, read from the
 * version profile: when a stream is over, and which protocol headers every request carries.
 */

import { isObject } from "../json.js";
import type { ProtocolProfile } from "../profile.js";
import type { MessageShapes } from "../message-shapes.js";

/**
 * Whether a streamed result ends the stream: a direct message, a task that is done, or a status update
 * that is the last one (0.x flags it with `final: true`; 1.0 has no flag, so a terminal or interrupted
 * state ends it).
 */
export function isFinalEvent(shapes: MessageShapes, result: unknown): boolean {
  const event = shapes.unwrap("stream", result);
  if (!isObject(event)) return false;
  const kind = shapes.classify(event);
  const status = event["status"];
  const state = isObject(status) ? status["state"] : undefined;
  if (kind === "message") return true;
  if (kind === "status-update") {
    return "final" in event ? event["final"] === true || shapes.isTerminal(state) : shapes.isTerminal(state) || shapes.isInterrupted(state);
  }
  if (kind === "task") return shapes.isTerminal(state);
  return false;
}

/** The headers the version asks clients to send with every request (1.0: `A2A-Version: 1.0`); none before 1.0. */
export function protocolHeaders(profile: ProtocolProfile): Record<string, string> {
  const name = profile.versionHeader;
  if (!name) return {};
  return { [name]: profile.specVersion.split(".").slice(0, 2).join(".") };
}
