import { it, vi } from "vitest";
import { randomUUID } from "node:crypto";
import { startServer, startWebhookReceiver } from "../server/harness.js";
import { startSdkV1Server } from "./sdk-v1-agent.js";
import { rawRpc } from "./wire.js";

const log = (...a: unknown[]) => process.stdout.write(a.map((x) => typeof x === "string" ? x : JSON.stringify(x)).join(" ") + "\n");
const msg = (text: string, extra: object = {}) => ({ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra });
const H = { headers: { "a2a-version": "1.0" } };

it("explore", async () => {
  for (const l of ["error", "warn", "info"] as const) vi.spyOn(console, l).mockImplementation(() => undefined);
  const sdk = await startSdkV1Server();
  const ours = await startServer("1.0.1", "node", {});
  const hook = await startWebhookReceiver();
  try {
    for (const [name, url] of [["SDK", sdk.rpcUrl], ["OURS", ours.rpcUrl]] as const) {
      log("=========", name);
      const r = async (label: string, method: string, params: unknown, id: unknown = 1, opts = H) => { const a = await rawRpc(url, method, params, id as never, opts); log(label, a.status, a.contentType, a.text.slice(0, 700)); return a; };
      const card = await fetch(new URL("/.well-known/agent-card.json", url), { headers: { "a2a-version": "1.0" } });
      log("card", card.status, card.headers.get("content-type"), (await card.text()).slice(0, 800));
      const t = await r("send task", "SendMessage", { message: msg("task") });
      const task = (t.bodies[0]!.result as any).task;
      await r("get hl0", "GetTask", { id: task.id, historyLength: 0 });
      await r("get nohl", "GetTask", { id: task.id });
      await r("send hl1", "SendMessage", { message: msg("task"), configuration: { historyLength: 1 } });
      await r("send to terminal", "SendMessage", { message: msg("more", { taskId: task.id, contextId: task.contextId }) });
      await r("subscribe terminal", "SubscribeToTask", { id: task.id });
      await r("stream unknown", "SendStreamingMessage", { message: msg("more", { taskId: "nope" }) }, 0);
      await r("subscribe unknown", "SubscribeToTask", { id: "nope" });
      await r("cancel completed", "CancelTask", { id: task.id });
      await r("no version header", "GetTask", { id: "nope" }, 1, { headers: {} });
      await r("notification", "GetTask", { id: "nope" }, 1, { headers: { "a2a-version": "1.0" }, notification: true } as never);
      await r("wrong types", "GetTask", { id: 42, historyLength: "all" });
      await r("malformed msg", "SendMessage", { message: { messageId: "m-x" } });
      await r("bad enum role", "SendMessage", { message: msg("task", { role: "user" }) });
      await r("unknown method", "message/send", { message: msg("task") });
      await r("list", "ListTasks", { pageSize: 2 });
      await r("list page0", "ListTasks", { pageSize: 0 });
      const a = await r("send ask", "SendMessage", { message: msg("ask") });
      const ask = (a.bodies[0]!.result as any).task;
      await r("push create noid", "CreateTaskPushNotificationConfig", { taskId: ask.id, url: hook.url, token: "t" });
      await r("push create", "CreateTaskPushNotificationConfig", { taskId: ask.id, id: "c1", url: hook.url, token: "t" });
      await r("push get missing", "GetTaskPushNotificationConfig", { taskId: ask.id, id: "none" });
      await r("push list", "ListTaskPushNotificationConfigs", { taskId: ask.id });
      await r("push create ssrf", "CreateTaskPushNotificationConfig", { taskId: ask.id, id: "c2", url: "http://10.0.0.1/x" });
      await r("push create file", "CreateTaskPushNotificationConfig", { taskId: ask.id, id: "c3", url: "file:///etc/passwd" });
      await r("push delete", "DeleteTaskPushNotificationConfig", { taskId: ask.id, id: "c2" });
      await r("push delete c3", "DeleteTaskPushNotificationConfig", { taskId: ask.id, id: "c3" });
      await r("push delete again", "DeleteTaskPushNotificationConfig", { taskId: ask.id, id: "c3" });
      await r("subscribe input-required", "SubscribeToTask", { id: ask.id });
      await r("follow up", "SendMessage", { message: msg("Ann", { taskId: ask.id, contextId: ask.contextId }) });
      await new Promise((res) => setTimeout(res, 200));
      for (const w of hook.received) log("HOOK", JSON.stringify(w.headers["content-type"]), w.headers["x-a2a-notification-token"], w.headers.authorization, JSON.stringify(w.body).slice(0, 300));
      hook.received.length = 0;
      await r("big", "SendMessage", { message: msg("x".repeat(200_000)) });
      await r("extended", "GetExtendedAgentCard", {});
    }
  } finally { await sdk.close(); await ours.close(); await hook.close(); }
});
