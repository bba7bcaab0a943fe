import { describe, expect, it } from "vitest";
import { modules, testCard, testExecutor } from "../../support/servers.js";

/**
 * The transport-free A2A service (runtime/service/service.ts) that every binding calls: typed params plus a call
 * context in, results or async iterables of events out, A2AErrors thrown, with auth (the card's schemes),
 * version negotiation (specification-1.0.1.md §3.2.6 A2A-Version) and validation done by the service, so
 * that a binding without steps of its own (gRPC) gets them all. Driven directly, with no HTTP.
 */
type Json = Record<string, unknown>;
const message = (text: string, over: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...over });
const ctx = (headers: Record<string, string> = { "a2a-version": "1.0" }) => ({ headers, signal: new AbortController().signal, binding: "GRPC" });

interface Service {
  methods: ReadonlyMap<string, { role: string | undefined; streaming: boolean }>;
  call(method: string, params: unknown, ctx: object): Promise<unknown>;
  stream(method: string, params: unknown, ctx: object): Promise<AsyncIterable<unknown>>;
  extendedCard(ctx: object): Promise<Json>;
  runtime: { bus: { listenerCount(id?: string): number } };
  close(): Promise<void>;
}

async function service(setup: { auth?: boolean; extendedCard?: boolean } = {}): Promise<{ service: Service; A2AError: new (...args: never[]) => Error }> {
  const m = await modules("1.0.1");
  const card = testCard("1.0.1", { ...(setup.auth ? { auth: { verify: () => true } } : {}), ...(setup.extendedCard ? { extendedCard: { name: "Extended" } } : {}) });
  const core = m.core.createA2AServer({
    card: card as never,
    executor: testExecutor() as never,
    ...(setup.extendedCard ? { extendedCard: { ...card, name: "Extended" } as never } : {}),
    ...(setup.auth ? { auth: { verify: (c: { value: string }) => (c.value === "secret" ? { allow: true, principal: { user: "ann" } } : false) } as never } : {}),
    pushNotifications: false,
    logger: { error: () => undefined },
  });
  const core2 = core as unknown as { service: Service };
  return { service: core2.service, A2AError: (m.core as unknown as { A2AError: new (...args: never[]) => Error }).A2AError };
}

describe("the A2A service, without a transport", () => {
  it("lists the version's methods by JSON-RPC name, with their role and whether they stream", async () => {
    const { service: s } = await service();
    expect(s.methods.get("SendMessage")).toEqual({ role: "send", streaming: false });
    expect(s.methods.get("SubscribeToTask")).toEqual({ role: "resubscribe", streaming: true });
    expect(s.methods.size).toBe(11);
  });

  it("call: a unary method answers its result in the version's shape", async () => {
    const { service: s } = await service();
    expect(await s.call("SendMessage", { message: message("hello") }, ctx())).toMatchObject({ message: { role: "ROLE_AGENT", parts: [{ text: "hello back" }] } });
    const task = ((await s.call("SendMessage", { message: message("task") }, ctx())) as Json).task as Json;
    expect(await s.call("GetTask", { id: task.id, historyLength: 1 }, ctx())).toMatchObject({ id: task.id, history: [{}] });
  });

  it("throws A2AErrors with the version's codes and google.rpc details: version (-32009), params (-32602, fields relative to the params), unknown task (-32001), unknown method (-32601)", async () => {
    const { service: s, A2AError } = await service();
    const version = s.call("GetTask", { id: "x" }, ctx({}));
    await expect(version).rejects.toBeInstanceOf(A2AError);
    await expect(version).rejects.toMatchObject({ code: -32009, data: [{ reason: "VERSION_NOT_SUPPORTED" }] });
    await expect(s.call("SendMessage", { message: message("x", { role: "user" }) }, ctx())).rejects.toMatchObject({
      code: -32602,
      data: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.role" }] }],
    });
    await expect(s.call("GetTask", { id: "none" }, ctx())).rejects.toMatchObject({ code: -32001, data: [{ reason: "TASK_NOT_FOUND", metadata: { taskId: "none" } }] });
    await expect(s.call("message/send", {}, ctx())).rejects.toMatchObject({ code: -32601 });
  });

  it("stream: the events until the terminal state; errors before the first event reject", async () => {
    const { service: s } = await service();
    const events: Json[] = [];
    for await (const event of await s.stream("SendStreamingMessage", { message: message("stream") }, ctx())) events.push(event as Json);
    expect(events.map((e) => Object.keys(e)[0])).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(events.at(-1)).toMatchObject({ statusUpdate: { status: { state: "TASK_STATE_COMPLETED" } } });
    await expect(s.stream("SubscribeToTask", { id: "none" }, ctx())).rejects.toMatchObject({ code: -32001 });
  });

  it("leaving a stream early releases its subscription at once, even while it waits for the next event", async () => {
    const { service: s } = await service();
    const iterator = (await s.stream("SendStreamingMessage", { message: message("slow") }, ctx()))[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as Json;
    const taskId = String((first.task as Json).id);
    expect(((await iterator.next()).value as Json).statusUpdate).toMatchObject({ status: { state: "TASK_STATE_WORKING" } });
    expect(s.runtime.bus.listenerCount(taskId)).toBe(1);
    const pending = iterator.next(); // the slow task publishes nothing more until it is canceled
    await iterator.return?.();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(s.runtime.bus.listenerCount(taskId)).toBe(0);
    await s.call("CancelTask", { id: taskId }, ctx());
  });

  it("auth from the context's headers (gRPC metadata): 401 with the challenge, then the verifier's principal", async () => {
    const { service: s } = await service({ auth: true });
    await expect(s.call("GetTask", { id: "x" }, ctx())).rejects.toMatchObject({ code: -32000, http: 401, challenge: 'Bearer realm="a2a"' });
    await expect(s.call("GetTask", { id: "x" }, ctx({ "a2a-version": "1.0", authorization: "Bearer wrong" }))).rejects.toMatchObject({ http: 401 });
    await expect(s.call("GetTask", { id: "x" }, ctx({ "a2a-version": "1.0", authorization: "Bearer secret" }))).rejects.toMatchObject({ code: -32001 });
  });

  it("extendedCard(ctx): the authenticated card, to authenticated callers only (specification-1.0.1.md §13.3)", async () => {
    const { service: s } = await service({ extendedCard: true, auth: true });
    await expect(s.extendedCard(ctx())).rejects.toMatchObject({ code: -32000, http: 401 });
    expect((await s.extendedCard(ctx({ "a2a-version": "1.0", authorization: "Bearer secret" }))).name).toBe("Extended");
  });
});
