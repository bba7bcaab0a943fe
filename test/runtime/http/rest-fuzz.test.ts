import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, modules, restErrorProblem, startServer, type RunningServer } from "../../support/servers.js";
import { sendFuzzRequests } from "../../support/wire/rest-fuzz-driver.js";
import { restErrorProblem030 } from "../../support/wire/rest-0.3.0.js";
import { rng, type Rng } from "../../support/seeded-random.js";

/**
 * Seeded fuzzing of the HTTP+JSON binding of 1.0.1 and 0.3.0 behind each adapter: the proto's routes with their
 * variables filled with odd values (percent signs, colons, slashes, unicode), the wrong verbs, paths
 * nearly right, query parameters of the wrong type, valid bodies mutated, random JSON, broken bytes and
 * odd content types and versions. Every reply must be a 2xx JSON or event stream, or an HTTP 4xx with
 * §11.6's google.rpc.Status body whose code is the status (specification-1.0.1.md §11.6; 0.3.0: the A2A
 * error object, rest.test.ts); never a 5xx, never a hang, and the server still answers at the end.
 * Reproducible: the seed is fixed.
 */
const REQUESTS_PER_FRAMEWORK = 1_500;
const CONCURRENCY = 8;
const SEED = 0x5e57;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };


const TEXTS = ["hello", "task", "ask", "stream", "Bob", "", "ünïcødé ✓"];
// ("." and ".." are left out: fetch resolves them before sending, so they would leave the interface's path.)
const VALUES = ["t1", "", "%", "%zz", "a:b", "a%3Ab", "...", "x/y", "ünï", "a".repeat(300), "0", "-1", "true", "null", "TASK_STATE_WORKING", "acme"];
const VERBS = ["GET", "POST", "DELETE", "PUT", "PATCH"];
const TYPES = ["application/json", "application/a2a+json", "application/json; charset=utf-8", "text/plain", "", "application/x-www-form-urlencoded"];
const VERSIONS = ["1.0", "1.0", "1.0", "0.3", "", "2", "1.0.1"];

function randomJson(r: Rng, depth = 0): Json {
  switch (r.int(depth > 2 ? 5 : 7)) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick([0, -1, 1.5, 1e308, 2 ** 53 + 1]);
    case 3:
      return r.pick(VALUES);
    case 4:
      return r.pick(TEXTS);
    case 5:
      return Array.from({ length: r.int(3) }, () => randomJson(r, depth + 1));
    default: {
      const o: { [k: string]: Json } = {};
      for (let i = 0; i < r.int(4); i++) o[r.pick(["message", "parts", "content", "role", "id", "name", "parent", "taskId", "url", "text", "file", "data", "__proto__", "configuration", "pushNotificationConfig", "x"])] = randomJson(r, depth + 1);
      return o;
    }
  }
}

function validBody(r: Rng, version: string): Json {
  if (version === "0.3.0") {
    // The 0.3 proto's shapes: `content`, a Part oneof, a FilePart oneof, `config` bodies for push configs.
    const part = r.pick<Json>([{ text: r.pick(TEXTS) }, { data: { data: { a: 1 } } }, { file: { fileWithUri: "https://x/y", mimeType: "text/plain" } }, { file: { fileWithBytes: "aGk=" } }, { text: "a", data: { data: {} } }, {}]);
    const message = { messageId: `m${r.int(1e6)}`, role: r.pick(["ROLE_USER", "ROLE_AGENT", "user", "ROLE_UNSPECIFIED"]), content: [part] };
    const pushNotificationConfig = { url: r.pick(["http://127.0.0.1:9/h", "not a url", "http://10.1.2.3/"]), token: "t" };
    return r.pick<Json>([{ message }, { message, configuration: { historyLength: r.int(4), blocking: r.next() < 0.5, pushNotification: pushNotificationConfig } }, { pushNotificationConfig }, { name: "tasks/t1" }, {}]);
  }
  const message = { messageId: `m${r.int(1e6)}`, role: r.pick(["ROLE_USER", "ROLE_AGENT", "user"]), parts: [r.pick<Json>([{ text: r.pick(TEXTS) }, { data: { a: 1 } }, { url: "https://x/y" }, { text: "a", url: "https://x" }])] };
  return r.pick<Json>([{ message }, { message, configuration: { historyLength: r.int(4), returnImmediately: r.next() < 0.3 } }, { url: r.pick(["http://127.0.0.1:9/h", "not a url", "http://10.1.2.3/"]) }, {}]);
}

/** Sets a value at a random place of a JSON value (or replaces it). */
function mutate(r: Rng, value: Json): Json {
  if (r.next() < 0.2 || value === null || typeof value !== "object") return randomJson(r);
  if (Array.isArray(value)) return value.length === 0 ? [randomJson(r)] : value.map((v, i) => (i === 0 ? mutate(r, v) : v));
  const keys = Object.keys(value);
  const copy: { [k: string]: Json } = { ...value };
  const key = keys.length > 0 && r.next() < 0.8 ? r.pick(keys) : r.pick(["extra", "tenant", "id"]);
  if (r.next() < 0.2) delete copy[key];
  else copy[key] = mutate(r, copy[key] ?? null);
  return copy;
}

interface Route {
  verb: string;
  path: string;
}

function randomRequest(r: Rng, routes: readonly Route[], version: string): { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array } {
  const route = r.pick(routes);
  let path = route.path.replace(/\{[^}]+\}/g, () => {
    const v = r.pick(VALUES);
    return r.next() < 0.6 ? encodeURIComponent(v) : v;
  });
  if (r.next() < 0.1) path = path.replace(/\/[^/]*$/, "/" + r.pick(VALUES));
  if (r.next() < 0.05) path += "/" + r.pick(["x", ":cancel", ""]);
  if (r.next() < 0.4) {
    const query = new URLSearchParams();
    for (let i = 0; i < r.int(3); i++) query.append(r.pick(["historyLength", "pageSize", "status", "contextId", "includeArtifacts", "statusTimestampAfter", "tenant", "junk"]), r.pick(VALUES));
    path += `?${query.toString()}`;
  }
  const method = r.next() < 0.85 ? route.verb : r.pick(VERBS);
  const headers: Record<string, string> = {};
  const asked = r.pick(VERSIONS);
  if (asked) headers["a2a-version"] = asked;
  let body: string | Uint8Array | undefined;
  if (method === "POST" || method === "PUT" || method === "PATCH") {
    const type = r.next() < 0.8 ? "application/json" : r.pick(TYPES);
    if (type) headers["content-type"] = type;
    const kind = r.int(10);
    body =
      kind < 6
        ? JSON.stringify(mutate(r, validBody(r, version)))
        : kind < 7
          ? JSON.stringify(validBody(r, version))
          : kind < 8
            ? JSON.stringify(randomJson(r))
            : kind < 9
              ? Uint8Array.from({ length: r.int(64) }, () => r.int(256))
              : "{".repeat(r.int(5000));
  }
  return { method, path, headers, ...(body !== undefined ? { body } : {}) };
}

for (const version of ["1.0.1", "0.3.0"])
for (const framework of FRAMEWORKS) {
  describe(`HTTP+JSON fuzzing of ${version} on ${framework}`, () => {
    let server: RunningServer;
    let routes: Route[];
    beforeAll(async () => {
      server = await startServer(version, framework, { rest: true, maxBodyBytes: 16 * 1024, allow: [] });
      routes = (((await modules(version)).protocol as unknown as { A2A_HTTP_ROUTES: Route[] }).A2A_HTTP_ROUTES);
    });
    afterAll(async () => server.close());

    it(`${REQUESTS_PER_FRAMEWORK} seeded requests: no crash, every reply well-formed`, { timeout: 240_000 }, async () => {
      const r = rng(SEED);
      const requests = Array.from({ length: REQUESTS_PER_FRAMEWORK }, () => randomRequest(r, routes, version));
      const { problems, statuses } = await sendFuzzRequests(server.restUrl, requests, {
        concurrency: CONCURRENCY,
        framework,
        errorProblem: (status, body) => (version === "0.3.0" ? restErrorProblem030(body) : restErrorProblem(body, status)),
      });
      expect(problems.slice(0, 10), `seed ${SEED}`).toEqual([]);
      // The table reached the binding's answers, not only its refusals.
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(404) ?? 0).toBeGreaterThan(0);
      const ok =
        version === "0.3.0"
          ? await fetch(`${server.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hello" }] } }) })
          : await fetch(`${server.restUrl}/message:send`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hello" }] } }) });
      expect(ok.status).toBe(200);
    });
  });
}
