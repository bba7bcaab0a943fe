/**
 * A logged event's JSON text is written as the SSE frame's result instead of serializing the event
 * again: the in-memory log hands its text to live subscribers, the runtime tags the result with it,
 * and the JSON-RPC binding splices it into the response. The frame must be byte for byte what
 * serializing the response gives.
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { eventIdOf, jsonTextOf, withEventId, withJsonText } from "../../src/runtime/event-ids.js";
import { stringifyResponse, stringifySuccessText, success } from "../../src/runtime/wire/jsonrpc.js";
import { InMemoryStore } from "../../src/runtime/stores/memory.js";
import type { LoggedEvent } from "../../src/runtime/stores/contract.js";

describe("event texts", () => {
  const event = { kind: "artifact-update", taskId: "t", contextId: "c", artifact: { artifactId: "a", parts: [{ kind: "text", text: 'line 1\nline "2" ✓' }] }, append: true };

  it("splice into the same JSON-RPC response text as serializing it, for every kind of id", () => {
    const text = JSON.stringify(event);
    for (const [id, idSource] of [[7, undefined], [7, "7"], [9007199254740993, "9007199254740993"], ["req-1", undefined], [null, undefined]] as const) {
      expect(stringifySuccessText(id, text, idSource)).toBe(stringifyResponse(success(id, event), idSource));
    }
  });

  it("are the live events' own texts in the in-memory log, and tag a result with its id", async () => {
    const store = new InMemoryStore();
    await store.tasks.commit({ task: { id: "t", contextId: "c", status: { state: "working" } }, expectedVersion: 0 });
    const received: LoggedEvent[] = [];
    const subscription = store.events.subscribe("t", (e) => received.push(e));
    await store.events.append("t", [{ event, final: false }]);
    expect(received).toHaveLength(1);
    expect(received[0]?.text).toBe(JSON.stringify(event));
    const tagged = withEventId(withJsonText(received[0]!.event, received[0]!.text), received[0]!.seq);
    expect(eventIdOf(tagged)).toBe("1");
    expect(jsonTextOf(tagged)).toBe(JSON.stringify(event));
    expect(jsonTextOf(withEventId({ other: true }, 2))).toBeUndefined();
    subscription.close();
    await store.close();
  });

  it("are invisible to JSON and to listings, stay off copies, and work on frozen results", () => {
    const result = { kind: "status-update", taskId: "t", final: false };
    withEventId(withJsonText(result, JSON.stringify(result)), 3);
    expect(JSON.stringify(result)).toBe('{"kind":"status-update","taskId":"t","final":false}');
    expect(Object.keys(result)).toEqual(["kind", "taskId", "final"]);
    expect(Reflect.ownKeys(result)).toEqual(["kind", "taskId", "final"]); // not even a symbol of its own
    expect(inspect(result)).toBe("{ kind: 'status-update', taskId: 't', final: false }");
    expect({ ...result }).toEqual({ kind: "status-update", taskId: "t", final: false });
    // A copy (the compat layer's translations, a wrapper) is another value: it must be serialized anew.
    const copy = { ...result, final: true };
    expect(jsonTextOf(copy)).toBeUndefined();
    expect(eventIdOf(copy)).toBeUndefined();
    // A value that inherits from a tagged one is not that one.
    expect(jsonTextOf(Object.create(result))).toBeUndefined();
    const frozen = Object.freeze({ kind: "message" });
    expect(eventIdOf(withEventId(withJsonText(frozen, '{"kind":"message"}'), 4))).toBe("4");
    expect(jsonTextOf(frozen)).toBe('{"kind":"message"}');
    expect(eventIdOf(result)).toBe("3");
    expect(jsonTextOf(result)).toBe(JSON.stringify(result));
  });
});
