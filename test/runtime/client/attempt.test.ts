// The abort wiring of one client request (src/runtime/client/http.ts startAttempt, issue 12: client speed):
// its AbortController is made only when its signal is asked for, and its hook (what runtime/client/node-fetch.ts's
// request listens to instead) must abort exactly when and why that signal would.
import { describe, expect, it } from "vitest";
import { startAttempt } from "../../../src/runtime/client/http.js";

describe("startAttempt", () => {
  it("the caller's abort aborts the signal and the hook with the caller's reason, and counts as aborted", () => {
    const caller = new AbortController();
    const attempt = startAttempt("call", caller.signal, 0);
    const heard: unknown[] = [];
    attempt.hook.addEventListener("abort", () => heard.push(attempt.hook.reason));
    const reason = new Error("stop");
    caller.abort(reason);
    expect(attempt.aborted).toBe(true);
    expect(attempt.reason).toBe(reason);
    expect(heard).toEqual([reason]);
    // A signal asked for after the abort is already aborted, with the same reason.
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.signal.reason).toBe(reason);
  });

  it("an already aborted caller signal aborts the attempt at once", () => {
    const reason = new Error("before");
    const attempt = startAttempt("call", AbortSignal.abort(reason), 60_000);
    expect(attempt.aborted).toBe(true);
    expect(attempt.hook.aborted).toBe(true);
    expect(attempt.hook.reason).toBe(reason);
  });

  it("the timeout aborts with an A2ATransportError naming the call", async () => {
    const attempt = startAttempt("message/send", undefined, 20);
    const signal = attempt.signal;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(attempt.aborted).toBe(true);
    expect(String(attempt.reason)).toMatch(/message\/send: timed out after 20 ms/);
    expect(signal.reason).toBe(attempt.reason);
    expect(attempt.hook.reason).toBe(attempt.reason);
  });

  it("abortQuietly aborts the request (hook and signal) without counting as the caller's abort", () => {
    const attempt = startAttempt("call", undefined, 0);
    let heard = 0;
    const listener = (): void => {
      heard++;
    };
    attempt.hook.addEventListener("abort", listener);
    attempt.abortQuietly();
    expect(heard).toBe(1);
    expect(attempt.aborted).toBe(false);
    expect(attempt.reason).toBeUndefined();
    expect(attempt.hook.aborted).toBe(true);
    expect((attempt.hook.reason as Error).name).toBe("AbortError");
    expect(attempt.signal.aborted).toBe(true);
    attempt.abortQuietly();
    expect(heard).toBe(1);
  });

  it("a removed hook listener is not called; dispose unlinks the caller's signal", () => {
    const caller = new AbortController();
    const attempt = startAttempt("call", caller.signal, 60_000);
    let heard = 0;
    const listener = (): void => {
      heard++;
    };
    attempt.hook.addEventListener("abort", listener);
    attempt.hook.removeEventListener("abort", listener);
    attempt.dispose();
    caller.abort(new Error("late"));
    expect(heard).toBe(0);
    expect(attempt.aborted).toBe(false);
    expect(attempt.hook.aborted).toBe(false);
  });
});
