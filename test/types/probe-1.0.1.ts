// Type probes for the generated 1.0.1 models (from the proto): oneofs are unions told apart by which
// member is present; enums are their ProtoJSON names. See probe-0.3.0.ts.
import {
  type A2ARequest,
  type Message,
  type Part,
  type StreamResponse,
  type SendMessageRpcResponse,
  type TaskState,
  type ParamsOf,
  type ResultOf,
  type TextPart,
  type RawPart,
  type UrlPart,
  type DataPart,
  type PartBase,
  type StreamResponseStatusUpdate,
  type SecurityScheme,
  type SecuritySchemeApiKey,
  TaskStateValues,
  A2A_METHODS,
  isTextPart,
  isUrlPart,
  isStreamResponseStatusUpdate,
  isSecuritySchemeApiKey,
} from "../../generated/a2a-1.0.1/index.js";
import type { AgentExecutor, TaskStateName } from "../../generated/a2a-1.0.1/server/core.js";
import {
  createA2AServer,
  InMemoryStore,
  type A2AStore,
  type PushConfigStore,
  type TaskCommit,
  type TaskPage,
  type TaskStore,
  type VersionedTask,
  type VersionedTaskStore,
} from "../../generated/a2a-1.0.1/server/core.js";
import type { AgentCard, Task, TaskPushNotificationConfig } from "../../generated/a2a-1.0.1/models.js";
// @ts-expect-error no numbered duplicates
import type { Message1 } from "../../generated/a2a-1.0.1/models.js";

declare const part: Part;
declare const event: StreamResponse;
declare const request: A2ARequest;
declare const response: SendMessageRpcResponse;

if ("text" in part) {
  const text: string = part.text;
} else if ("url" in part) {
  const url: string = part.url;
  // @ts-expect-error a url part has no text
  part.text;
}
// @ts-expect-error 1.0 parts have no kind
const kindPart: Part = { kind: "text", text: "x" };

if ("statusUpdate" in event) {
  const state: TaskState = event.statusUpdate.status.state;
} else if ("task" in event) {
  const id: string = event.task.id;
}

if (request.method === "GetTask") {
  const id: string = request.params.id;
  // @ts-expect-error GetTask params have no message
  request.params.message;
}
if ("error" in response) {
  const code: number = response.error.code;
} else if ("message" in response.result) {
  const m: Message = response.result.message;
}
const state: TaskState = "TASK_STATE_COMPLETED";
// @ts-expect-error 0.x spelling
const old: TaskState = "completed";
const states: readonly TaskState[] = TaskStateValues;
// @ts-expect-error 1.0 roles are ROLE_*
const m: Message = { messageId: "1", role: "user", parts: [{ text: "hi" }] };
const params: ParamsOf<"ListTasks"> = { contextId: "c", pageSize: 10 };
declare const page: ResultOf<"ListTasks">;
const total: number = page.totalSize;
const streaming: true = A2A_METHODS.SubscribeToTask.streaming;

// Task states an agent sets (issue 13 item 1): the version's states in either spelling, never any string.
const stateExecutor: AgentExecutor = {
  execute(_ctx, events) {
    events.status("TASK_STATE_WORKING");
    events.status("completed");
    events.status("input-required", "which city?");
    // @ts-expect-error a misspelled state does not compile
    events.status("complet");
    // @ts-expect-error the proto's zero value is no state a task can be put in
    events.status("TASK_STATE_UNSPECIFIED");
    // @ts-expect-error nor is any string a state
    events.status(String("completed"));
  },
};
const authRequired: TaskStateName = "auth-required";

// Named members of the presence unions (issue 13 item 2): names from the proto's oneof, a shared base, guards.
const textPart: TextPart = { text: "hi", mediaType: "text/plain" };
const rawPart: RawPart = { raw: "aGk=", filename: "hi.txt" };
const urlPart: UrlPart = { url: "https://example.com/a.png" };
const dataPart: DataPart = { data: { a: 1 } };
const parts: Part[] = [textPart, rawPart, urlPart, dataPart];
const base: PartBase = textPart;
// @ts-expect-error a TextPart holds text, not a url
const notText: TextPart = { url: "https://example.com" };
// @ts-expect-error the base has no content of its own
const baseText: PartBase = { text: "x" };
if (isTextPart(part)) {
  const text: string = part.text;
} else if (isUrlPart(part)) {
  const url: string = part.url;
  // @ts-expect-error the guard narrowed to a UrlPart
  part.text;
}
if (isStreamResponseStatusUpdate(event)) {
  const update: StreamResponseStatusUpdate = event;
  const state: TaskState = event.statusUpdate.status.state;
}
declare const scheme: SecurityScheme;
if (isSecuritySchemeApiKey(scheme)) {
  const key: SecuritySchemeApiKey = scheme;
  const location: string = scheme.apiKeySecurityScheme.location;
}
// @ts-expect-error a guard takes a member of its own union
isTextPart(event);
// A user's task store, written against the 1.0.1 Task model with no casts (issue 13): the server's
// TaskStore / A2AStore types carry the version's Task, and createA2AServer takes such a store as it
// takes the runtime's own (InMemoryStore keeps JSON objects).
class MapTaskStore implements VersionedTaskStore {
  private readonly entries = new Map<string, VersionedTask>();
  async get(taskId: string): Promise<Task | undefined> {
    return this.entries.get(taskId)?.task;
  }
  async save(task: Task): Promise<void> {
    this.entries.set(task.id, { task, version: (this.entries.get(task.id)?.version ?? 0) + 1 });
  }
  async list(filter: { contextId?: string } = {}): Promise<Task[]> {
    return [...this.entries.values()].map((e) => e.task).filter((t) => filter.contextId === undefined || t.contextId === filter.contextId);
  }
  async load(taskId: string): Promise<VersionedTask | undefined> {
    return this.entries.get(taskId);
  }
  async commit(write: TaskCommit): Promise<{ version: number; sequences: number[] }> {
    const state: TaskState = write.task.status.state;
    void state;
    const version = write.expectedVersion + 1;
    this.entries.set(write.task.id, { task: write.task, version });
    return { version, sequences: [] };
  }
  async query(): Promise<TaskPage> {
    const tasks = await this.list();
    return { tasks, nextPageToken: "", totalSize: tasks.length };
  }
}
declare const card: AgentCard;
declare const storeExecutor: AgentExecutor;
declare const engine: Omit<A2AStore, "tasks">;
const typedStore: A2AStore = { ...engine, tasks: new MapTaskStore() };
createA2AServer({ card, executor: storeExecutor, store: typedStore });
createA2AServer({ card, executor: storeExecutor, store: new InMemoryStore() });

// Generated without --telemetry and --compat: both options take `false` only, and the task runtime is the
// server's own (test/runtime/server/options-not-generated.test.ts refuses other values at run time).
createA2AServer({ card, executor: storeExecutor, telemetry: false, compat: false });
// @ts-expect-error without --telemetry there is no telemetry to set up
createA2AServer({ card, executor: storeExecutor, telemetry: {} });
// @ts-expect-error without --compat there is no second version to serve
createA2AServer({ card, executor: storeExecutor, compat: {} });
// @ts-expect-error the task runtime is a hook of the compat layer, not an option for an agent
createA2AServer({ card, executor: storeExecutor, runtime: undefined as never });
const legacy: TaskStore = {
  async get() {
    return undefined;
  },
  async save(task) {
    // @ts-expect-error a stored task is a 1.0.1 Task: its state is a TaskState, not any string
    const state: "complet" = task.status.state;
    void state;
  },
};
void legacy;
// A user's push config store, written against the 1.0.1 model (TaskPushNotificationConfig: flat, the url
// beside the id) with no casts, in a store createA2AServer takes (issue 13: PushConfigStore is not JSON-typed).
class MapPushConfigStore implements PushConfigStore {
  private readonly configs = new Map<string, TaskPushNotificationConfig[]>();
  async set(taskId: string, config: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    const url: string = config.url;
    void url;
    this.configs.set(taskId, [...(this.configs.get(taskId) ?? []), config]);
    return config;
  }
  async get(taskId: string, configId?: string): Promise<TaskPushNotificationConfig | undefined> {
    return this.configs.get(taskId)?.find((c) => configId === undefined || c.id === configId);
  }
  async list(taskId: string): Promise<TaskPushNotificationConfig[]> {
    return this.configs.get(taskId) ?? [];
  }
  async delete(): Promise<boolean> {
    return false;
  }
}
declare const engineWithoutConfigs: Omit<A2AStore, "tasks" | "pushConfigs">;
const fullyTypedStore: A2AStore = { ...engineWithoutConfigs, tasks: new MapTaskStore(), pushConfigs: new MapPushConfigStore() };
createA2AServer({ card, executor: storeExecutor, store: fullyTypedStore });
declare const pushConfigs: PushConfigStore;
declare const registered: Awaited<ReturnType<PushConfigStore["list"]>>;
const firstUrl: string | undefined = registered[0]?.url;
void firstUrl;
// @ts-expect-error 1.0.1 configs are flat: the url is the config's own, not under pushNotificationConfig
void pushConfigs.set("task-1", { pushNotificationConfig: { url: "https://example.com/hook" } });
// @ts-expect-error a config without its url is no TaskPushNotificationConfig
void pushConfigs.set("task-1", { id: "c1" });
const jsonConfigs: PushConfigStore = {
  ...new MapPushConfigStore(),
  // @ts-expect-error a store answering JSON objects is no 1.0.1 PushConfigStore
  async get(): Promise<{ [key: string]: unknown } | undefined> {
    return {};
  },
};
void jsonConfigs;
export {};
