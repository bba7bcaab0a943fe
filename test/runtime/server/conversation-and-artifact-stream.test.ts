/**
 * Two executor helpers of the runtime:
 * - `events.artifactStream()`: an artifact of unknown length. Every chunk after the first is sent with
 *   `append: true` and the last one with `lastChunk: true` (1.0.1 §4.2.2 TaskArtifactUpdateEvent: append,
 *   last_chunk), though the writer learns it was the last only at `end()`; no empty chunk is sent.
 * - `ctx.conversation()`: the earlier tasks of the same contextId (1.0.1 §3.4.1), oldest first, bounded,
 *   and only those of the caller's owner scope (1.0.1 §13.1).
 */
import { inspect } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { distinctTimestamp, inProcessContext, modules, testCard, type InProcessService } from "../../support/servers.js";

type Json = Record<string, unknown>;

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.splice(0)) await step();
});

interface Ctx {
  text: string;
  taskId: string;
  contextId: string;
  conversation(options?: { limit?: number }): Promise<Json[]>;
}
interface Events {
  artifactStream(init?: { name?: string; artifactId?: string }): { artifactId: string; write(chunk: string): void; end(chunk?: string): void };
  completed(m?: string): void;
}

async function service(execute: (ctx: Ctx, events: Events) => Promise<void>, auth?: { verify: (c: { value: string }) => unknown }): Promise<InProcessService> {
  const m = await modules("1.0.1");
  const core = m.core.createA2AServer({
    card: testCard("1.0.1", auth ? { auth } : {}) as never,
    executor: { execute } as never,
    ...(auth ? { auth: auth as never } : {}),
    pushNotifications: false,
    logger: { error: () => undefined, warn: () => undefined },
  } as never);
  const made = (core as unknown as { service: InProcessService }).service;
  cleanup.push(() => made.close());
  return made;
}

const message = (text: string, ids: Json = {}) => ({ messageId: `m-${Math.random()}`, role: "ROLE_USER", parts: [{ text }], ...ids });

describe("events.artifactStream (1.0.1 §4.2.2: append, lastChunk)", () => {
  it("sends each chunk once, in order, appending after the first, and marks the last one at end()", async () => {
    const s = await service(async (ctx, events) => {
      const stream = events.artifactStream({ name: "answer" });
      for (const word of ctx.text.split(" ")) stream.write(`${word} `);
      stream.end();
      events.completed();
    });
    const updates: Json[] = [];
    for await (const event of await s.stream("SendStreamingMessage", { message: message("one two three four") }, inProcessContext())) {
      const update = (event as { artifactUpdate?: Json }).artifactUpdate;
      if (update) updates.push(update);
    }
    expect(updates.map((u) => ((u["artifact"] as Json)["parts"] as Array<{ text: string }>).map((p) => p.text).join(""))).toEqual(["one ", "two ", "three ", "four "]);
    expect(updates.map((u) => u["append"] === true)).toEqual([false, true, true, true]);
    expect(updates.map((u) => u["lastChunk"] === true)).toEqual([false, false, false, true]);
    expect((updates[0]?.["artifact"] as Json)["name"]).toBe("answer");
    expect(new Set(updates.map((u) => (u["artifact"] as Json)["artifactId"])).size).toBe(1);
  });

  it("end(chunk) sends that chunk as the last; a stream nothing was written to sends nothing", async () => {
    const s = await service(async (_ctx, events) => {
      events.artifactStream().end();
      const stream = events.artifactStream({ artifactId: "a" });
      stream.write("x");
      stream.end("y");
      stream.write("ignored");
      events.completed();
    });
    const updates: Json[] = [];
    for await (const event of await s.stream("SendStreamingMessage", { message: message("go") }, inProcessContext())) {
      const update = (event as { artifactUpdate?: Json }).artifactUpdate;
      if (update) updates.push(update);
    }
    expect(updates.map((u) => [((u["artifact"] as Json)["parts"] as Array<{ text: string }>)[0]?.text, u["lastChunk"] === true])).toEqual([
      ["x", false],
      ["y", true],
    ]);
  });
});

describe("ctx.conversation (1.0.1 §3.4.1 contextId, §13.1 owner scope)", () => {
  it("gives the earlier tasks of the context, oldest first, bounded, never the current task nor another owner's (also from a copy of ctx)", async () => {
    const seen: Json[][] = [];
    const logged: string[] = [];
    const s = await service(
      async (ctx, events) => {
        // Through a copy of the context, as an executor wrapping another passes it on.
        const copy = { ...ctx };
        logged.push(inspect(ctx));
        if (ctx.text.startsWith("look")) seen.push(await copy.conversation({ limit: Number(ctx.text.split(" ")[1]) }));
        events.completed(`done: ${ctx.text}`);
      },
      { verify: (c) => ({ allow: true, principal: c.value }) },
    );
    const as = (who: string) => ({ ...inProcessContext(), headers: { "a2a-version": "1.0", authorization: `Bearer ${who}` } });
    const send = async (text: string, contextId: string, who = "alice") =>
      (await s.call("SendMessage", { message: message(text, { contextId }) }, as(who))) as { task: Json };
    await send("first", "c1");
    await distinctTimestamp();
    await send("second", "c1");
    await distinctTimestamp();
    await send("other context", "c2");
    await send("bob's", "c1", "bob");
    await distinctTimestamp();
    const current = await send("look 10", "c1");
    const texts = (tasks: Json[]) => tasks.map((t) => ((t["history"] as Json[])[0]?.["parts"] as Array<{ text: string }>)[0]?.text);
    expect(texts(seen[0] ?? [])).toEqual(["first", "second"]);
    expect((seen[0] ?? []).some((t) => t["id"] === current.task["id"])).toBe(false);
    await send("look 1", "c1");
    // The newest one only (the earlier "look 10" task), never the running one.
    expect(texts(seen[1] ?? [])).toEqual(["look 10"]);
    // A logged context shows its fields, not the runtime it reads the store through.
    expect(logged[0]).toContain("conversation: [Getter]");
    expect(logged.some((l) => l.includes("TaskRuntime"))).toBe(false);
  });
});
