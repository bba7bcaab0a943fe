/**
 * Authorization scoping (schema/specification-1.0.1.md §13.1, MUST; the same for 0.3.0): a task, its push
 * configs and its streams belong to the principal that created it. Another principal gets exactly the
 * answer a task that does not exist gets — for get, cancel, subscribe, send-to-task and every push-config
 * method — and ListTasks answers only the caller's tasks. On every store engine (the owner is kept beside
 * the task, never inside it).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { A2AStore } from "../../../src/runtime/stores/contract.js";
import { modules, testCard, testExecutor } from "../../support/servers.js";
import { enginesUnderTest, freshNamespace } from "../../support/stores/engines-under-test.js";

type Json = Record<string, unknown>;
interface Service {
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  stream(method: string, params: unknown, ctx: object): Promise<AsyncIterable<unknown>>;
  close(): Promise<void>;
}

const { engines } = enginesUnderTest("the owner-scoping tests");
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

const V1 = {
  version: "1.0.1",
  headers: { "a2a-version": "1.0" },
  message: (text: string, over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...over }),
  send: "SendMessage",
  get: "GetTask",
  cancel: "CancelTask",
  subscribe: "SubscribeToTask",
  list: "ListTasks",
  taskOf: (result: unknown) => (result as Json).task as Json,
  pushSet: (taskId: string) => ["CreateTaskPushNotificationConfig", { taskId, id: "c1", url: "https://hooks.example.com/a" }] as const,
  pushGet: (taskId: string) => ["GetTaskPushNotificationConfig", { taskId, id: "c1" }] as const,
  pushList: (taskId: string) => ["ListTaskPushNotificationConfigs", { taskId }] as const,
  pushDelete: (taskId: string) => ["DeleteTaskPushNotificationConfig", { taskId, id: "c1" }] as const,
};
const V03 = {
  version: "0.3.0",
  headers: {},
  message: (text: string, over: Json = {}) => ({ kind: "message", messageId: `m-${Math.random()}`, role: "user", parts: [{ kind: "text", text }], ...over }),
  send: "message/send",
  get: "tasks/get",
  cancel: "tasks/cancel",
  subscribe: "tasks/resubscribe",
  list: undefined,
  taskOf: (result: unknown) => result as Json,
  pushSet: (taskId: string) => ["tasks/pushNotificationConfig/set", { taskId, pushNotificationConfig: { id: "c1", url: "https://hooks.example.com/a" } }] as const,
  pushGet: (taskId: string) => ["tasks/pushNotificationConfig/get", { id: taskId, pushNotificationConfigId: "c1" }] as const,
  pushList: (taskId: string) => ["tasks/pushNotificationConfig/list", { id: taskId }] as const,
  pushDelete: (taskId: string) => ["tasks/pushNotificationConfig/delete", { id: taskId, pushNotificationConfigId: "c1" }] as const,
};

async function service(version: string, store: A2AStore, options: { auth: boolean; owner?: (p: unknown) => string }): Promise<Service> {
  const m = await modules(version);
  const card = testCard(version, { auth: options.auth });
  const core = m.core.createA2AServer({
    card: card as never,
    executor: testExecutor() as never,
    store: store as never,
    ...(options.owner ? { owner: options.owner } : {}),
    ...(options.auth ? { auth: { verify: (c: { value: string }) => ({ allow: true, principal: { sub: c.value.split("@")[0], org: c.value.split("@")[1] } }) } as never } : {}),
    pushNotifications: { lookup: async () => [{ address: "93.184.216.34", family: 4 }] },
    logger: { error: () => undefined, warn: () => undefined },
  } as never);
  const s = (core as unknown as { service: Service }).service;
  cleanup.push(() => s.close());
  return s;
}

/** The error a call rejects with, as the wire would show it (code, message, data). */
async function errorOf(promise: Promise<unknown>): Promise<Json> {
  try {
    const value = await promise;
    if (value && typeof value === "object" && Symbol.asyncIterator in value) {
      for await (const _ of value as AsyncIterable<unknown>) return { unexpected: "an event" };
    }
    return { unexpected: value as Json };
  } catch (error) {
    const e = error as { code?: unknown; message?: unknown; data?: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
}

/** The same error with the task id it names replaced, to compare "not yours" with "does not exist". */
function withoutId(error: Json, id: string): string {
  return JSON.stringify(error).split(id).join("<id>");
}

for (const engine of engines) {
  describe(`authorization scoping on the ${engine.name} store (1.0.1 §13.1)`, () => {
    for (const v of [V1, V03]) {
      it(`${v.version}: another principal gets exactly "task not found" for every method on a task it did not create`, async () => {
        const ns = freshNamespace();
        const store = await engine.open(ns);
        cleanup.push(async () => {
          await store.close();
          await engine.drop(ns);
        });
        const s = await service(v.version, store, { auth: true });
        const as = (who: string) => ({ headers: { ...v.headers, authorization: `Bearer ${who}` }, signal: new AbortController().signal, binding: "JSONRPC" });
        const alice = as("alice@acme");
        const bob = as("bob@acme");
        const task = v.taskOf(await s.call(v.send, { message: v.message("ask") }, alice));
        const id = String(task.id);
        const missing = "00000000-0000-4000-8000-000000000000";
        expect(await s.call(v.get, { id }, alice)).toMatchObject({ id });
        await s.call(...v.pushSet(id), alice);

        const probes: Array<[string, (taskId: string, who: object) => Promise<unknown>]> = [
          ["get", (t, who) => s.call(v.get, { id: t }, who)],
          ["cancel", (t, who) => s.call(v.cancel, { id: t }, who)],
          ["subscribe", (t, who) => s.stream(v.subscribe, { id: t }, who)],
          ["send to the task", (t, who) => s.call(v.send, { message: v.message("more", { taskId: t }) }, who)],
          ["push config set", (t, who) => s.call(...v.pushSet(t), who)],
          ["push config get", (t, who) => s.call(...v.pushGet(t), who)],
          ["push config list", (t, who) => s.call(...v.pushList(t), who)],
          ["push config delete", (t, who) => s.call(...v.pushDelete(t), who)],
        ];
        for (const [name, probe] of probes) {
          const notYours = await errorOf(probe(id, bob));
          const nonexistent = await errorOf(probe(missing, bob));
          expect(notYours.code, `${name}: ${JSON.stringify(notYours)}`).toBe(v.version === "1.0.1" ? -32001 : -32001);
          expect(withoutId(notYours, id), name).toBe(withoutId(nonexistent, missing));
        }
        // Nothing bob tried changed alice's task or its config.
        expect(await s.call(v.get, { id }, alice)).toMatchObject({ id, status: { state: v.version === "1.0.1" ? "TASK_STATE_INPUT_REQUIRED" : "input-required" } });
        expect(await s.call(...v.pushGet(id), alice)).toMatchObject(v.version === "1.0.1" ? { taskId: id, id: "c1" } : { taskId: id, pushNotificationConfig: { id: "c1" } });

        if (v.list) {
          const mine = (await s.call(v.list, {}, alice)) as { tasks: Json[]; totalSize: number };
          expect(mine.tasks.map((t) => t.id)).toEqual([id]);
          expect(mine.totalSize).toBe(1);
          const theirs = (await s.call(v.list, {}, bob)) as { tasks: Json[]; totalSize: number };
          expect(theirs).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: "" });
          const bobs = v.taskOf(await s.call(v.send, { message: v.message("ask") }, bob));
          expect(((await s.call(v.list, {}, bob)) as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([bobs.id]);
          expect(((await s.call(v.list, {}, alice)) as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([id]);
        }
        // The owner's own calls still work: continue and finish the task.
        expect(v.taskOf(await s.call(v.send, { message: v.message("Ann", { taskId: id }) }, alice))).toMatchObject({ id, status: { state: v.version === "1.0.1" ? "TASK_STATE_COMPLETED" : "completed" } });
        // The owner is kept beside the task, never inside it.
        expect(JSON.stringify((await store.tasks.load(id))?.task)).not.toContain("alice");
        expect((await store.tasks.load(id))?.owner).toBe("alice");
      });
    }

    it("1.0.1: unauthenticated agents share one scope; a configured owner resolver groups principals", async () => {
      const ns = freshNamespace();
      const store = await engine.open(ns);
      cleanup.push(async () => {
        await store.close();
        await engine.drop(ns);
      });
      const open = await service("1.0.1", store, { auth: false });
      const anon = { headers: V1.headers, signal: new AbortController().signal, binding: "JSONRPC" };
      const task = V1.taskOf(await open.call("SendMessage", { message: V1.message("ask") }, anon));
      expect(await open.call("GetTask", { id: task.id }, anon)).toMatchObject({ id: task.id });
      expect(((await open.call("ListTasks", {}, anon)) as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([task.id]);

      const byOrg = await service("1.0.1", store, { auth: true, owner: (p) => String((p as { org?: string }).org) });
      const as = (who: string) => ({ headers: { ...V1.headers, authorization: `Bearer ${who}` }, signal: new AbortController().signal, binding: "JSONRPC" });
      const shared = V1.taskOf(await byOrg.call("SendMessage", { message: V1.message("ask") }, as("ann@acme")));
      expect(await byOrg.call("GetTask", { id: shared.id }, as("bea@acme"))).toMatchObject({ id: shared.id });
      expect(await errorOf(byOrg.call("GetTask", { id: shared.id }, as("cid@other")))).toMatchObject({ code: -32001 });
      // The unauthenticated scope's task is not the org's.
      expect(await errorOf(byOrg.call("GetTask", { id: task.id }, as("ann@acme")))).toMatchObject({ code: -32001 });
      expect(((await byOrg.call("ListTasks", {}, as("bea@acme"))) as { tasks: Json[] }).tasks.map((t) => t.id)).toEqual([shared.id]);
    });
  });
}
