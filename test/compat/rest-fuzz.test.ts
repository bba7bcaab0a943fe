import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAMEWORKS, modules, restErrorProblem } from "../support/servers.js";
import { sendFuzzRequests } from "../support/wire/rest-fuzz-driver.js";
import { restErrorProblem030 } from "../support/wire/rest-0.3.0.js";
import { startCompatAgent, type CompatAgent } from "../support/compat/agent.js";
import { rng, type Rng } from "../support/seeded-random.js";

/**
 * Seeded fuzzing of a compat agent's HTTP+JSON binding (issue 9), where 0.3.0's routes (`/v1/…`) and
 * 1.0.1's share one prefix and the A2A-Version header picks between them (docs/compat.md): both versions'
 * routes with odd variables, wrong verbs, both versions' bodies mutated, random JSON and bytes, odd content
 * types, and every A2A-Version (none, 0.3, 1.0, unknown). Every reply must be a 2xx JSON or event stream,
 * or a 4xx whose body is an error of one of the two versions (1.0: google.rpc.Status whose code is the
 * status, specification-1.0.1.md §11.6; 0.3: the A2A error object); never a 5xx, never a hang; both
 * versions still answer at the end. Reproducible: the seed is fixed.
 */
const REQUESTS_PER_FRAMEWORK = 600;
const CONCURRENCY = 8;
const SEED = 0xc0a7;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Route {
  verb: string;
  path: string;
}


const VALUES = ["t1", "", "%", "%zz", "a:b", "x/y", "ünï", "v1", "a".repeat(200), "-1", "TASK_STATE_WORKING"];
const VERSIONS = ["", "", "0.3", "1.0", "1.0", "0.2", "2.0", "1.0.1", "garbage"];
const TYPES = ["application/json", "application/a2a+json", "text/plain", ""];

function randomJson(r: Rng, depth = 0): Json {
  switch (r.int(depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return r.pick([true, 0, -1, 1.5]);
    case 2:
      return r.pick(VALUES);
    case 3:
      return "hello";
    case 4:
      return Array.from({ length: r.int(3) }, () => randomJson(r, depth + 1));
    default: {
      const o: { [k: string]: Json } = {};
      for (let i = 0; i < r.int(4); i++) o[r.pick(["message", "parts", "content", "role", "id", "name", "taskId", "url", "text", "kind", "configuration", "x"])] = randomJson(r, depth + 1);
      return o;
    }
  }
}

/** A valid body of either version: 1.0's ProtoJSON, 0.3's proto JSON. */
function validBody(r: Rng): Json {
  const v03 = { messageId: `m${r.int(1e6)}`, role: "ROLE_USER", content: [{ text: r.pick(["hello", "task", "stream"]) }] };
  const v10 = { messageId: `m${r.int(1e6)}`, role: "ROLE_USER", parts: [{ text: r.pick(["hello", "task", "stream"]) }] };
  return r.pick<Json>([{ message: v03 }, { message: v10 }, { message: v10, configuration: { returnImmediately: true } }, { url: "http://127.0.0.1:9/h" }, { name: "tasks/t1" }, {}]);
}

function mutate(r: Rng, value: Json): Json {
  if (r.next() < 0.2 || value === null || typeof value !== "object") return randomJson(r);
  if (Array.isArray(value)) return value.length === 0 ? [randomJson(r)] : value.map((v, i) => (i === 0 ? mutate(r, v) : v));
  const keys = Object.keys(value);
  const copy: { [k: string]: Json } = { ...value };
  const key = keys.length > 0 && r.next() < 0.8 ? r.pick(keys) : "extra";
  if (r.next() < 0.2) delete copy[key];
  else copy[key] = mutate(r, copy[key] ?? null);
  return copy;
}

function randomRequest(r: Rng, routes: readonly Route[]): { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array } {
  const route = r.pick(routes);
  let path = route.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.pick(VALUES)));
  if (r.next() < 0.1) path = path.replace(/\/[^/]*$/, `/${r.pick(VALUES)}`);
  if (r.next() < 0.2) path += `?${new URLSearchParams([[r.pick(["historyLength", "pageSize", "A2A-Version", "tenant"]), r.pick(VALUES)]]).toString()}`;
  const method = r.next() < 0.85 ? route.verb : r.pick(["GET", "POST", "DELETE", "PUT"]);
  const headers: Record<string, string> = {};
  const asked = r.pick(VERSIONS);
  if (asked) headers["a2a-version"] = asked;
  let body: string | Uint8Array | undefined;
  if (method === "POST" || method === "PUT") {
    const type = r.next() < 0.85 ? "application/json" : r.pick(TYPES);
    if (type) headers["content-type"] = type;
    const kind = r.int(10);
    body = kind < 6 ? JSON.stringify(mutate(r, validBody(r))) : kind < 8 ? JSON.stringify(validBody(r)) : kind < 9 ? JSON.stringify(randomJson(r)) : Uint8Array.from({ length: r.int(64) }, () => r.int(256));
  }
  return { method, path, headers, ...(body !== undefined ? { body } : {}) };
}

for (const framework of FRAMEWORKS) {
  describe(`HTTP+JSON fuzzing of a compat agent on ${framework}`, () => {
    let agent: CompatAgent;
    let routes: Route[];
    beforeAll(async () => {
      agent = await startCompatAgent(framework, { bindings: ["HTTP+JSON"] });
      const routesOf = async (version: string) => ((await modules(version)).protocol as unknown as { A2A_HTTP_ROUTES: Route[] }).A2A_HTTP_ROUTES;
      routes = [...(await routesOf("1.0.1")), ...(await routesOf("0.3.0"))];
    }, 120_000);
    afterAll(async () => agent.close());

    it(`${REQUESTS_PER_FRAMEWORK} seeded requests over both versions' routes: no crash, every reply well-formed`, { timeout: 240_000 }, async () => {
      const r = rng(SEED);
      const requests = Array.from({ length: REQUESTS_PER_FRAMEWORK }, () => randomRequest(r, routes));
      const { problems, statuses } = await sendFuzzRequests(agent.restUrl, requests, {
        concurrency: CONCURRENCY,
        framework,
        // Either version's error body: a route both versions have answers in the version the request names.
        errorProblem: (status, body) => {
          const as10 = restErrorProblem(body, status);
          const as03 = restErrorProblem030(body);
          return as10 && as03 ? `neither version's error (${as10}; ${as03})` : undefined;
        },
        label: (request, i) => `#${i} ${request.method} ${request.path.slice(0, 120)} (A2A-Version ${request.headers["a2a-version"] ?? "none"})`,
      });
      expect(problems.slice(0, 10), `seed ${SEED}`).toEqual([]);
      expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(0);
      expect(statuses.get(404) ?? 0).toBeGreaterThan(0);
      // Both versions still answer.
      const v03 = await fetch(`${agent.restUrl}/v1/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hello" }] } }) });
      expect(v03.status).toBe(200);
      const v10 = await fetch(`${agent.restUrl}/message:send`, { method: "POST", headers: { "content-type": "application/json", "a2a-version": "1.0" }, body: JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hello" }] } }) });
      expect(v10.status).toBe(200);
    });
  });
}
