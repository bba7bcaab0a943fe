/**
 * Task runtime pieces of the generated server: where tasks and push configs are kept, and the event
 * bus that carries a task's updates to its streams. In-memory by default; a durable store plugs in by
 * implementing the interfaces.
 */
import type { JsonObject } from "./profile.js";

/**
 * Where tasks are kept. The runtime treats tasks as immutable values: it never changes an object it
 * saved or got, it saves a new one. A store may therefore keep and return the objects themselves
 * (the in-memory one does), or serialize them (a durable one).
 */
export interface TaskStore {
  get(taskId: string): Promise<JsonObject | undefined>;
  save(task: JsonObject): Promise<void>;
  /** The tasks, newest first (for ListTasks); stores that cannot list may leave it out. */
  list?(filter?: { contextId?: string }): Promise<JsonObject[]>;
}

export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, JsonObject>();
  constructor(private readonly maxTasks = 100_000) {}
  async get(taskId: string): Promise<JsonObject | undefined> {
    return this.tasks.get(taskId);
  }
  async save(task: JsonObject): Promise<void> {
    const id = task.id as string;
    this.tasks.delete(id);
    this.tasks.set(id, task);
    // Oldest first out, so that a long-running server keeps bounded memory.
    while (this.tasks.size > this.maxTasks) {
      const oldest = this.tasks.keys().next().value;
      if (oldest === undefined) break;
      this.tasks.delete(oldest);
    }
  }
  async list(filter: { contextId?: string } = {}): Promise<JsonObject[]> {
    const all = [...this.tasks.values()].reverse();
    return filter.contextId === undefined ? all : all.filter((t) => t.contextId === filter.contextId || t.sessionId === filter.contextId);
  }
  get size(): number {
    return this.tasks.size;
  }
}

/** Push-notification configs per task, each with an id. */
export interface PushConfigStore {
  set(taskId: string, config: JsonObject): Promise<JsonObject>;
  get(taskId: string, configId?: string): Promise<JsonObject | undefined>;
  list(taskId: string): Promise<JsonObject[]>;
  delete(taskId: string, configId: string): Promise<boolean>;
}

export class InMemoryPushConfigStore implements PushConfigStore {
  private readonly configs = new Map<string, Map<string, JsonObject>>();
  async set(taskId: string, config: JsonObject): Promise<JsonObject> {
    const id = typeof config.id === "string" && config.id !== "" ? config.id : taskId;
    const stored = { ...config };
    let forTask = this.configs.get(taskId);
    if (!forTask) this.configs.set(taskId, (forTask = new Map()));
    forTask.set(id, stored);
    return { ...stored };
  }
  async get(taskId: string, configId?: string): Promise<JsonObject | undefined> {
    const forTask = this.configs.get(taskId);
    if (!forTask) return undefined;
    const found = configId === undefined ? [...forTask.values()].at(-1) : forTask.get(configId);
    return found && { ...found };
  }
  async list(taskId: string): Promise<JsonObject[]> {
    return [...(this.configs.get(taskId)?.values() ?? [])].map((c) => ({ ...c }));
  }
  async delete(taskId: string, configId: string): Promise<boolean> {
    return this.configs.get(taskId)?.delete(configId) ?? false;
  }
}

export type BusListener = (event: JsonObject, final: boolean) => void;

/** Delivers one task's events to the streams that listen; remembers nothing. */
export class TaskEventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();

  subscribe(taskId: string, listener: BusListener): () => void {
    let set = this.listeners.get(taskId);
    if (!set) this.listeners.set(taskId, (set = new Set()));
    set.add(listener);
    return () => {
      const current = this.listeners.get(taskId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(taskId);
    };
  }

  publish(taskId: string, event: JsonObject, final: boolean): void {
    for (const listener of [...(this.listeners.get(taskId) ?? [])]) listener(event, final);
  }

  /** How many listeners a task has (all tasks when no id): for tests of disconnect handling. */
  listenerCount(taskId?: string): number {
    if (taskId !== undefined) return this.listeners.get(taskId)?.size ?? 0;
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
