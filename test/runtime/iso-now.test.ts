import { afterEach, describe, expect, it, vi } from "vitest";
import { isoNow } from "../../src/runtime/profile.js";

/** Status timestamps (isoNow) are formatted once per millisecond and are always the clock's time now. */
describe("isoNow", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("is Date.prototype.toISOString of the clock, again after the clock moves on or back", () => {
    vi.useFakeTimers();
    for (const at of [Date.UTC(2026, 10, 24, 4, 0, 0, 1), Date.UTC(2026, 10, 24, 4, 0, 0, 2), Date.UTC(2026, 10, 24, 4, 0, 0, 2), Date.UTC(2025, 0, 1), Date.UTC(2026, 10, 24, 4, 0, 0, 1)]) {
      vi.setSystemTime(at);
      expect(isoNow()).toBe(new Date(at).toISOString());
    }
  });

  it("matches the real clock", () => {
    const before = Date.now();
    const now = Date.parse(isoNow());
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
