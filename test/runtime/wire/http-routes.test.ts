import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, httpRoutesOf } from "../../../src/proto/binding.js";
import { expandRoute, RouteTable } from "../../../src/runtime/wire/http-routes.js";
import type { HttpRoute } from "../../../src/runtime/wire/http-routes.js";
import { ROOT } from "../../support/project.js";
import { modules } from "../../support/servers.js";

/**
 * The facts of the HTTP+JSON binding against their sources: the route table is the proto's
 * google.api.http rules (schema/a2a-1.0.1.proto), it serves every path of specification-1.0.1.md §11.3,
 * and the error statuses are the §5.4 table; then the route matcher and expander of the runtime.
 */
const spec = readFileSync(join(ROOT, "schema", "specification-1.0.1.md"), "utf8");
const proto = readFileSync(join(ROOT, "schema", "a2a-1.0.1.proto"), "utf8");
/** A path with its variables made anonymous: "/tasks/{id=*}:cancel" and "/tasks/{id}:cancel" → "/tasks/{}:cancel". */
const shape = (path: string) => path.replace(/\{[^}]*\}/g, "{}");

describe("the route table (A2A_HTTP_ROUTES of 1.0.1)", () => {
  it("is every google.api.http rule of the proto, then its additional bindings (the tenant-prefixed paths)", async () => {
    const routes = ((await modules("1.0.1")).protocol as unknown as { A2A_HTTP_ROUTES: HttpRoute[] }).A2A_HTTP_ROUTES;
    const rpcs = [...proto.matchAll(/^\s*rpc (\w+)\(/gm)].map((m) => m[1]);
    expect(new Set(routes.map((r) => r.method))).toEqual(new Set(rpcs));
    expect(routes).toEqual(httpRoutesOf(proto));
    for (const route of routes.filter((r) => !r.path.startsWith("/{tenant}"))) {
      expect(routes.some((o) => o.method === route.method && o.verb === route.verb && o.path === `/{tenant}${route.path}`), `${route.verb} ${route.path}`).toBe(true);
    }
    expect(routes.find((r) => r.method === "GetTask")).toEqual({ method: "GetTask", verb: "GET", path: "/tasks/{id=*}", query: { tenant: "string", historyLength: "integer" } });
    expect(routes.find((r) => r.method === "ListTasks")?.query).toMatchObject({ contextId: "string", status: "string", pageSize: "integer", includeArtifacts: "boolean", statusTimestampAfter: "string" });
  });

  it("serves every path §11.3 lists; where the text and the proto disagree (§11.3.2 POST …:subscribe, the proto GET) both verbs are served, the proto's first", async () => {
    const routes = ((await modules("1.0.1")).protocol as unknown as { A2A_HTTP_ROUTES: HttpRoute[] }).A2A_HTTP_ROUTES;
    const section = spec.slice(spec.indexOf("### 11.3. URL Patterns"), spec.indexOf("### 11.4."));
    const listed = [...section.matchAll(/^- `(GET|POST|PUT|DELETE|PATCH) ([^`]+)`/gm)].map((m) => ({ verb: m[1] as string, path: m[2] as string }));
    expect(listed.length).toBeGreaterThanOrEqual(11);
    for (const { verb, path } of listed) {
      expect(routes.some((r) => r.verb === verb && shape(r.path) === shape(path)), `${verb} ${path}`).toBe(true);
    }
    const subscribe = routes.filter((r) => r.method === "SubscribeToTask" && !r.path.startsWith("/{tenant}"));
    expect(subscribe.map((r) => r.verb)).toEqual(["GET", "POST"]);
  });

  it("the error statuses are §5.4's table (gRPC status and HTTP status of each A2A error)", () => {
    const section = spec.slice(spec.indexOf("### 5.4. Error Code Mappings"), spec.indexOf("### 5.5."));
    const rows = [...section.matchAll(/^\| `(\w+Error)`\s*\| `(-\d+)`\s*\| `(\w+)`\s*\| `(\d{3}) /gm)].map((m) => ({ name: m[1] as string, grpc: m[3] as string, http: Number(m[4]) }));
    expect(rows).toHaveLength(9);
    for (const row of rows) expect(ERROR_STATUS[row.name], row.name).toEqual({ grpc: row.grpc, http: row.http });
  });

  it("is emitted with the statuses by code, and only for versions with a proto", async () => {
    const v1 = (await modules("1.0.1")).protocol as unknown as { A2A_ERROR_STATUS: Record<number, unknown> };
    expect(v1.A2A_ERROR_STATUS[-32001]).toEqual({ http: 404, grpc: "NOT_FOUND" });
    expect(v1.A2A_ERROR_STATUS[-32602]).toEqual({ http: 400, grpc: "INVALID_ARGUMENT" });
    const v025 = (await modules("0.2.5")).protocol as unknown as Record<string, unknown>;
    expect(v025.A2A_HTTP_ROUTES).toBeUndefined();
  });
});

describe("RouteTable and expandRoute (the runtime's path templates)", () => {
  const routes: HttpRoute[] = [
    { method: "Get", verb: "GET", path: "/tasks/{id=*}", query: { historyLength: "integer" } },
    { method: "Get", verb: "GET", path: "/{tenant}/tasks/{id=*}" },
    { method: "Cancel", verb: "POST", path: "/tasks/{id=*}:cancel", body: "*" },
    { method: "Config", verb: "GET", path: "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}" },
    { method: "Named", verb: "GET", path: "/v1/{name=tasks/*}" },
    { method: "Create", verb: "POST", path: "/v1/{parent=tasks/*}/configs", body: "config" },
  ];
  const table = new RouteTable(routes);
  const match = (verb: string, path: string) => {
    const hit = table.matching(path).find((x) => x.compiled.route.verb === verb);
    return hit ? RouteTable.values(hit.compiled, hit.match) : undefined;
  };

  it("a variable is one segment without a verb's colon; the verb route wins over the plain one", () => {
    expect(match("GET", "/tasks/abc")).toEqual({ route: routes[0], values: { id: "abc" } });
    expect(match("POST", "/tasks/abc:cancel")).toEqual({ route: routes[2], values: { id: "abc" } });
    expect(match("GET", "/tasks/abc:cancel")).toBeUndefined();
    expect(match("GET", "/tasks/a%3Ab")).toEqual({ route: routes[0], values: { id: "a:b" } });
    expect(match("GET", "/acme/tasks/t")).toEqual({ route: routes[1], values: { tenant: "acme", id: "t" } });
    expect(match("GET", "/tasks/t/pushNotificationConfigs/c")).toEqual({ route: routes[3], values: { taskId: "t", id: "c" } });
    expect(match("GET", "/tasks/%zz")).toEqual({ route: routes[0], badField: "id" });
  });

  it("multi-segment patterns (0.3's {name=tasks/*}) capture the whole resource name", () => {
    expect(match("GET", "/v1/tasks/abc")).toEqual({ route: routes[4], values: { name: "tasks/abc" } });
    expect(match("GET", "/v1/other/abc")).toBeUndefined();
  });

  it("expanding fills the path (percent-encoded), the query (rules without a body) or the body, and round-trips through matching", () => {
    expect(expandRoute(routes, "Get", { id: "a:b/c", historyLength: 2 })).toMatchObject({ verb: "GET", path: "/tasks/a%3Ab%2Fc", body: undefined });
    expect(expandRoute(routes, "Get", { id: "a", historyLength: 2 })?.query.toString()).toBe("historyLength=2");
    expect(expandRoute(routes, "Get", { id: "a", tenant: "acme" })?.path).toBe("/acme/tasks/a");
    expect(expandRoute(routes, "Cancel", { id: "x", metadata: { a: 1 } })).toMatchObject({ verb: "POST", path: "/tasks/x:cancel", body: { metadata: { a: 1 } } });
    expect(expandRoute(routes, "Create", { parent: "tasks/t1", config: { url: "u" } })).toMatchObject({ path: "/v1/tasks/t1/configs", body: { url: "u" } });
    expect(expandRoute(routes, "Get", { historyLength: 1 })).toBeUndefined();
    const expanded = expandRoute(routes, "Config", { taskId: "t 1", id: "ü" });
    expect(match("GET", expanded?.path ?? "")).toEqual({ route: routes[3], values: { taskId: "t 1", id: "ü" } });
  });
});
