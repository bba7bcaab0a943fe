/**
 * The CORS policy (runtime/http/cors.ts) as the Fetch standard's CORS protocol reads it: which origin is
 * allowed and how it is echoed, credentials (never `*` with them), a RegExp matching the whole origin only,
 * and the headers of a preflight and of an actual answer.
 */
import { describe, expect, it } from "vitest";
import { A2A_CORS_HEADERS, CorsPolicy } from "../../../src/runtime/http/cors.js";
import type { CoreRequest, CoreResponse } from "../../../src/runtime/call.js";

const request = (method: string, headers: Record<string, string>): CoreRequest => ({ method, path: "/a2a", query: new URLSearchParams(), headers, body: undefined });
const answer: CoreResponse = { kind: "json", status: 200, headers: { "content-type": "application/json" }, body: "{}" };
const preflight = (origin: string) => request("OPTIONS", { origin, "access-control-request-method": "POST" });

describe("CorsPolicy", () => {
  it('"*" allows any page with `*`; with credentials it echoes the origin instead (the standard forbids `*` with credentials)', () => {
    const open = new CorsPolicy({ origins: "*" });
    expect(open.apply(request("POST", { origin: "https://a.example" }), answer).headers["access-control-allow-origin"]).toBe("*");
    expect(open.apply(request("POST", { origin: "https://a.example" }), answer).headers["vary"]).toBeUndefined();
    const withCredentials = new CorsPolicy({ origins: "*", credentials: true });
    const headers = withCredentials.apply(request("POST", { origin: "https://a.example" }), answer).headers;
    expect(headers["access-control-allow-origin"]).toBe("https://a.example");
    expect(headers["access-control-allow-credentials"]).toBe("true");
    expect(headers["vary"]).toBe("Origin");
  });

  it("a list matches origins exactly, a RegExp only as a whole (no suffix or prefix tricks)", () => {
    const policy = new CorsPolicy({ origins: ["https://app.example.com", /https:\/\/[a-z]+\.example\.org/] });
    const allowed = (origin: string) => policy.preflight(preflight(origin)).headers["access-control-allow-origin"];
    expect(allowed("https://app.example.com")).toBe("https://app.example.com");
    expect(allowed("https://app.example.com.evil.test")).toBeUndefined();
    expect(allowed("http://app.example.com")).toBeUndefined();
    expect(allowed("https://team.example.org")).toBe("https://team.example.org");
    expect(allowed("https://team.example.org.evil.test")).toBeUndefined();
    expect(allowed("https://evil.test/https://team.example.org")).toBeUndefined();
    const byFunction = new CorsPolicy({ origins: (origin) => origin.endsWith(".internal") });
    expect(byFunction.preflight(preflight("https://x.internal")).headers["access-control-allow-origin"]).toBe("https://x.internal");
  });

  it("the preflight: 204, methods, the A2A headers, max-age; an origin not allowed gets no Allow-Origin", () => {
    const policy = new CorsPolicy({ origins: ["https://app.example.com"], maxAgeSeconds: 120 });
    expect(CorsPolicy.isPreflight(preflight("https://app.example.com"))).toBe(true);
    expect(CorsPolicy.isPreflight(request("OPTIONS", {}))).toBe(false);
    const ok = policy.preflight(preflight("https://app.example.com"));
    expect(ok).toMatchObject({ kind: "empty", status: 204 });
    expect(ok.headers).toMatchObject({ "access-control-allow-methods": "GET, HEAD, POST, DELETE", "access-control-max-age": "120", "access-control-allow-headers": A2A_CORS_HEADERS.join(", ") });
    for (const header of ["A2A-Version", "A2A-Extensions", "Authorization", "Content-Type", "Last-Event-ID"]) expect(ok.headers["access-control-allow-headers"]).toContain(header);
    expect(ok.headers["access-control-allow-credentials"]).toBeUndefined();
    const refused = policy.preflight(preflight("https://evil.test"));
    expect(refused.status).toBe(204);
    expect(refused.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("an actual answer keeps its headers and gains the exposed ones; a request without Origin is left as it is", () => {
    const policy = new CorsPolicy({ origins: ["https://app.example.com"], exposedHeaders: ["A2A-Extensions"] });
    const out = policy.apply(request("POST", { origin: "https://app.example.com" }), { ...answer, headers: { ...answer.headers, vary: "Accept" } });
    expect(out.headers).toEqual({ "content-type": "application/json", vary: "Accept, Origin", "access-control-allow-origin": "https://app.example.com", "access-control-expose-headers": "A2A-Extensions" });
    expect(policy.apply(request("POST", {}), answer)).toBe(answer);
    expect(() => new CorsPolicy({} as never)).toThrow(/cors\.origins/);
  });
});
