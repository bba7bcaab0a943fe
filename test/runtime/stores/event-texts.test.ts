/**
 * The in-memory event log keeps its events' JSON texts as UTF-8 bytes in one array
 * (runtime/stores/event-texts.ts): what a resumption replays (specification-0.3.0.md §7.9, tasks/resubscribe;
 * 1.0.1 SubscribeToTask with Last-Event-ID) must be each event's text exactly as logged.
 */
import { describe, expect, it } from "vitest";
import { EventTexts } from "../../../src/runtime/stores/event-texts.js";
import { InMemoryStore } from "../../../src/runtime/stores/memory.js";

describe("EventTexts", () => {
  it("gives every text back exactly, whatever its characters, across many growths of the array", () => {
    const texts = new EventTexts();
    const samples = [
      JSON.stringify({ kind: "artifact-update", text: "token 1 " }),
      JSON.stringify({ text: "é, 中文, emoji 🎉, a line\nbreak, a tab\t" }),
      JSON.stringify({ lone: "\ud800 alone" }), // JSON.stringify escapes a lone surrogate: still ASCII
      JSON.stringify("\ufeffstarts with a BOM character"),
      "",
      JSON.stringify({ big: "x".repeat(5000) }),
    ];
    const kept: string[] = [];
    for (let i = 0; i < 600; i++) {
      const text = samples[i % samples.length] as string;
      expect(texts.push(text)).toBe(i + 1);
      kept.push(text);
    }
    expect(texts.length).toBe(600);
    kept.forEach((text, i) => expect(texts.at(i)).toBe(text));
  });

  it("keeps a text longer than a page in a page of its own, between texts that share pages", () => {
    const texts = new EventTexts();
    const long = JSON.stringify({ text: "ü€🎉".repeat(30_000) }); // ~270 KB of UTF-8
    const small = (i: number) => JSON.stringify({ i });
    for (let i = 0; i < 50; i++) texts.push(small(i));
    texts.push(long);
    for (let i = 50; i < 100; i++) texts.push(small(i));
    expect(texts.at(50)).toBe(long);
    expect(texts.at(49)).toBe(small(49));
    expect(texts.at(51)).toBe(small(50));
    expect(texts.at(100)).toBe(small(99));
  });

  it("fit keeps the texts and takes more after it; an index out of range is a RangeError", () => {
    const texts = new EventTexts();
    texts.push('{"a":1}');
    texts.push('{"b":"ü"}');
    texts.fit();
    expect([texts.at(0), texts.at(1)]).toEqual(['{"a":1}', '{"b":"ü"}']);
    texts.push('{"c":3}');
    expect(texts.at(2)).toBe('{"c":3}');
    expect(() => texts.at(3)).toThrow(RangeError);
    expect(() => new EventTexts().at(0)).toThrow(RangeError);
  });
});

describe("the in-memory log replays what it logged", () => {
  it("a resumption after a finished streamed task replays every later event as committed, non-ASCII text included", async () => {
    const store = new InMemoryStore();
    const task = { kind: "task", id: "t1", contextId: "c1", status: { state: "working" } };
    await store.tasks.commit({ task, expectedVersion: 0 });
    const seen: number[] = [];
    const subscription = store.events.subscribe("t1", (e) => seen.push(e.seq));
    const events = Array.from({ length: 40 }, (_, i) => ({
      event: { kind: "artifact-update", taskId: "t1", contextId: "c1", artifact: { artifactId: "a", parts: [{ kind: "text", text: `chunk ${i} — ✓ 🎉` }] } },
      final: false,
    }));
    await store.tasks.commit({ task, expectedVersion: 1, events });
    const done = { ...task, status: { state: "completed" } };
    await store.tasks.commit({ task: done, expectedVersion: 2, events: [{ event: { kind: "status-update", taskId: "t1", contextId: "c1", status: { state: "completed" }, final: true }, final: true }] });
    subscription.close();
    expect(seen).toHaveLength(41);
    // The task finished: its log was fitted and is kept for the resumption window.
    const replay = await store.events.read("t1", 10);
    expect(replay.map((e) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 11));
    expect(replay.slice(0, 30).map((e) => e.event)).toEqual(events.slice(10).map((e) => e.event));
    expect(replay.at(-1)).toMatchObject({ final: true, event: { kind: "status-update" } });
    await store.close();
  });
});
