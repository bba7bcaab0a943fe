// splitTarget (runtime/http/http.ts): the adapters' path and query of a request target or absolute URL. A plain
// path is taken as it is; the answer must always be the URL parser's (dot segments resolved, a leading
// '//' not read as a host, percent-encoded dots, queries, hosts with ports and IPv6 literals).
import { describe, expect, it } from "vitest";
import { splitTarget, targetPath } from "../../../src/runtime/http/http.js";

const TARGETS = [
  "/a2a",
  "/",
  "/a2a/",
  "/v1/tasks/abc:cancel",
  "/a.b/c..d",
  "/a:b@c!$&()*+,;=",
  "/.well-known/agent-card.json",
  "/a/../b",
  "/../x",
  "/a/./b",
  "/a/.",
  "/x/..",
  "/a2a/.%2e/x",
  "//evil/a2a",
  "/a b",
  "/a\\b",
  "/a?x=1&y=%20z",
  "/a?q=a+b#frag",
  "http://127.0.0.1:3000/a2a",
  "https://example.com:8443/v1/tasks/x:cancel?historyLength=2",
  "http://localhost/a2a/../x",
  "http://u@h/a2a",
  "http://[::1]:80/a2a",
  "http://h",
  "x/y",
];

describe("splitTarget", () => {
  it.each(TARGETS)("%s: the path and query new URL gives", (target) => {
    const url = new URL(target, "http://localhost");
    const split = splitTarget(target);
    expect(split.path).toBe(url.pathname);
    expect([...split.query]).toEqual([...url.searchParams]);
    expect(targetPath(target)).toBe(url.pathname);
  });
});
