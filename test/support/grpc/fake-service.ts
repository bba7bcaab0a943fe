/**
 * Test fixture of the gRPC binding: the 1.0.1 binding data as the generator derives it from the bundled
 * proto, and a fake A2A service that keeps the service contract (service-contract.md): it checks auth and
 * `a2a-version` from the call context's headers, validates params with the generated 1.0.1 validators (the
 * same -32602 + google.rpc BadRequest details the JSON-RPC binding answers), and serves every method from
 * memory. It records what it was called with, so tests can see what crossed the binding.
 */
import { join } from "node:path";
import { grpcDescriptor } from "../../../src/emit/grpc.js";
import type { GrpcBindingSpec } from "../../../src/runtime/grpc/binding.js";
import type { A2AServiceLike, GrpcCallContext } from "../../../src/runtime/grpc/server.js";
import { fieldPath } from "../../../src/runtime/grpc/status.js";
import type { ValidationIssue, Validator } from "../../../src/runtime/validation.js";
import { generatedValidators, GENERATED, SCHEMA_DIR } from "../project.js";

type Json = Record<string, unknown>;

export async function binding101(): Promise<GrpcBindingSpec> {
  const protocol = (await import(join(GENERATED, "a2a-1.0.1", "protocol.ts"))) as { A2A_PROFILE: { errorCodes: Record<string, number>; methods: Record<string, string> } };
  const descriptor = grpcDescriptor(join(SCHEMA_DIR, "a2a-1.0.1.proto"), Object.values(protocol.A2A_PROFILE.methods), "1.0.1");
  return { proto: descriptor.proto, service: descriptor.service, methods: descriptor.methods, errorCodes: protocol.A2A_PROFILE.errorCodes };
}

/** The service's error (service.ts `A2AError`): JSON-RPC code, message, data (1.0: google.rpc details). */
export class FakeA2AError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    readonly http?: number,
    readonly challenge?: string,
  ) {
    super(message);
  }
}

const errorInfo = (reason: string, metadata: Record<string, string>) => [
  { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org", metadata },
];

/** The params definition of each 1.0.1 method (its request message). */
export const REQUEST_TYPES: Record<string, string> = {
  SendMessage: "SendMessageRequest",
  SendStreamingMessage: "SendMessageRequest",
  GetTask: "GetTaskRequest",
  ListTasks: "ListTasksRequest",
  CancelTask: "CancelTaskRequest",
  SubscribeToTask: "SubscribeToTaskRequest",
  CreateTaskPushNotificationConfig: "TaskPushNotificationConfig",
  GetTaskPushNotificationConfig: "GetTaskPushNotificationConfigRequest",
  ListTaskPushNotificationConfigs: "ListTaskPushNotificationConfigsRequest",
  DeleteTaskPushNotificationConfig: "DeleteTaskPushNotificationConfigRequest",
  GetExtendedAgentCard: "GetExtendedAgentCardRequest",
};

export const CARD: Json = {
  name: "Fake agent",
  description: "A fake agent for the gRPC binding's tests",
  supportedInterfaces: [{ url: "127.0.0.1:0", protocolBinding: "GRPC", protocolVersion: "1.0" }],
  version: "1.0.0",
  capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } }, key: { apiKeySecurityScheme: { location: "header", name: "x-api-key" } } },
  securityRequirements: [{ schemes: { bearer: { list: [] } } }, { schemes: { key: { list: [] } } }],
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain", "application/json"],
  skills: [{ id: "echo", name: "Echo", description: "Echoes", tags: ["echo"], examples: ["hi"] }],
};

export interface FakeServiceOptions {
  /** Require `authorization: Bearer good` or `x-api-key: key`. */
  auth?: boolean;
}

export class FakeService implements A2AServiceLike {
  readonly calls: Array<{ method: string; params: unknown; headers: Readonly<Record<string, string | undefined>> }> = [];
  readonly tasks = new Map<string, Json>();
  readonly pushConfigs = new Map<string, Json[]>();
  /** Streams the service opened and whether each was released (its generator finished). */
  readonly streams: Array<{ method: string; released: boolean; signal: AbortSignal }> = [];
  private validators: Record<string, Validator<unknown>> | undefined;
  private counter = 0;

  constructor(private readonly options: FakeServiceOptions = {}) {}

  async call(method: string, params: unknown, ctx: GrpcCallContext): Promise<unknown> {
    const p = await this.admit(method, params, ctx);
    switch (method) {
      case "SendMessage": {
        const message = p.message as Json;
        const text = textOf(message);
        if (text === "hi") return { message: { messageId: `m-${++this.counter}`, role: "ROLE_AGENT", parts: [{ text: "hello!" }], contextId: "ctx-1" } };
        const task = this.newTask(message, "TASK_STATE_COMPLETED");
        return { task: withHistory(task, (p.configuration as Json | undefined)?.historyLength as number | undefined) };
      }
      case "GetTask":
        return withHistory(this.task(String(p.id)), p.historyLength as number | undefined);
      case "ListTasks": {
        const tasks = [...this.tasks.values()].filter((t) => (p.contextId === undefined || t.contextId === p.contextId) && (p.status === undefined || (t.status as Json).state === p.status));
        return { tasks: tasks.map((t) => withHistory(t, 0)), nextPageToken: "", pageSize: (p.pageSize as number | undefined) ?? 50, totalSize: tasks.length };
      }
      case "CancelTask": {
        const task = this.task(String(p.id));
        const state = (task.status as Json).state;
        if (state !== "TASK_STATE_WORKING") {
          throw new FakeA2AError(-32002, `Task ${String(p.id)} is not cancelable (${String(state)})`, errorInfo("TASK_NOT_CANCELABLE", { taskId: String(p.id) }));
        }
        task.status = { state: "TASK_STATE_CANCELED", timestamp: new Date().toISOString() };
        return task;
      }
      case "CreateTaskPushNotificationConfig": {
        this.task(String(p.taskId));
        const config = { ...p, id: (p.id as string | undefined) ?? `cfg-${++this.counter}` };
        this.pushConfigs.set(String(p.taskId), [...(this.pushConfigs.get(String(p.taskId)) ?? []), config]);
        return config;
      }
      case "GetTaskPushNotificationConfig": {
        const found = (this.pushConfigs.get(String(p.taskId)) ?? []).find((c) => c.id === p.id);
        if (!found) throw new FakeA2AError(-32001, `No push config ${String(p.id)} for task ${String(p.taskId)}`, errorInfo("TASK_NOT_FOUND", { taskId: String(p.taskId) }));
        return found;
      }
      case "ListTaskPushNotificationConfigs":
        this.task(String(p.taskId));
        return { configs: this.pushConfigs.get(String(p.taskId)) ?? [] };
      case "DeleteTaskPushNotificationConfig":
        this.pushConfigs.set(String(p.taskId), (this.pushConfigs.get(String(p.taskId)) ?? []).filter((c) => c.id !== p.id));
        return {};
      case "GetExtendedAgentCard":
        return { ...CARD, description: "The extended card" };
      default:
        throw new FakeA2AError(-32601, `Method not found: ${method}`);
    }
  }

  async stream(method: string, params: unknown, ctx: GrpcCallContext): Promise<AsyncIterable<unknown>> {
    const p = await this.admit(method, params, ctx);
    const record = { method, released: false, signal: ctx.signal };
    if (method === "SendStreamingMessage") {
      const task = this.newTask(p.message as Json, "TASK_STATE_SUBMITTED");
      const id = String(task.id);
      const contextId = String(task.contextId);
      this.streams.push(record);
      return (async function* () {
        try {
          yield { task };
          yield { statusUpdate: { taskId: id, contextId, status: { state: "TASK_STATE_WORKING", timestamp: "2025-01-02T03:04:05.678Z" } } };
          yield { artifactUpdate: { taskId: id, contextId, artifact: { artifactId: "a1", parts: [{ text: "chunk" }, { data: { n: 1, list: [true, null, "x"] } }] }, append: false, lastChunk: true } };
          task.status = { state: "TASK_STATE_COMPLETED", timestamp: "2025-01-02T03:04:06Z" };
          yield { statusUpdate: { taskId: id, contextId, status: task.status, metadata: { final: true } } };
        } finally {
          record.released = true;
        }
      })();
    }
    if (method === "SubscribeToTask") {
      const task = this.task(String(p.id));
      const state = (task.status as Json).state as string;
      if (["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"].includes(state)) {
        throw new FakeA2AError(-32004, `Task ${String(task.id)} is in a terminal state`, errorInfo("UNSUPPORTED_OPERATION", { taskId: String(task.id) }));
      }
      this.streams.push(record);
      const signal = ctx.signal;
      // A subscription that lasts until the caller goes away: one status event every 20 ms.
      return (async function* () {
        try {
          yield { task };
          let n = 0;
          while (!signal.aborted) {
            await new Promise((resolve) => setTimeout(resolve, 20));
            yield { statusUpdate: { taskId: task.id, contextId: task.contextId, status: { state: "TASK_STATE_WORKING", message: { messageId: `tick-${++n}`, role: "ROLE_AGENT", parts: [{ text: `tick ${n}` }] } } } };
          }
        } finally {
          record.released = true;
        }
      })();
    }
    throw new FakeA2AError(-32601, `Method not found: ${method}`);
  }

  /** A task in the working state, for subscriptions and cancel. */
  addWorkingTask(id: string): Json {
    const task: Json = { id, contextId: "ctx-w", status: { state: "TASK_STATE_WORKING" }, history: [] };
    this.tasks.set(id, task);
    return task;
  }

  private async admit(method: string, params: unknown, ctx: GrpcCallContext): Promise<Json> {
    this.calls.push({ method, params, headers: ctx.headers });
    if (this.options.auth) {
      const authorization = ctx.headers["authorization"];
      const key = ctx.headers["x-api-key"];
      if (authorization === undefined && key === undefined) throw new FakeA2AError(-32000, "Authentication required", undefined, 401, 'Bearer realm="a2a"');
      if (authorization !== "Bearer good" && key !== "key") throw new FakeA2AError(-32000, "Forbidden", undefined, 403);
    }
    const version = ctx.headers["a2a-version"];
    if (version?.split(".").slice(0, 2).join(".") !== "1.0") {
      throw new FakeA2AError(-32009, `Version ${version ?? "(none, read as 0.3)"} is not supported`, errorInfo("VERSION_NOT_SUPPORTED", { supported: "1.0" }));
    }
    this.validators ??= await generatedValidators("1.0.1");
    const validate = this.validators[REQUEST_TYPES[method] ?? ""];
    if (validate && !validate(params)) {
      const issues = (validate.errors ?? []) as ValidationIssue[];
      throw new FakeA2AError(-32602, "Invalid params", [
        { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: issues.map((i) => ({ field: fieldPath(i.pointer), description: i.message })) },
      ]);
    }
    return params as Json;
  }

  private newTask(message: Json, state: string): Json {
    const id = `task-${++this.counter}`;
    const contextId = (message.contextId as string | undefined) ?? `ctx-${this.counter}`;
    const task: Json = {
      id,
      contextId,
      status: { state, timestamp: "2025-01-02T03:04:05Z", message: { messageId: `s-${id}`, role: "ROLE_AGENT", parts: [{ text: `echo: ${textOf(message)}` }], contextId, taskId: id } },
      artifacts: [
        {
          artifactId: "result",
          name: "result",
          parts: [{ text: textOf(message) }, { data: { echoed: message.parts, nested: { ok: true, n: 1.5 } } }, { raw: Buffer.from("bytes \u00ff").toString("base64"), mediaType: "application/octet-stream", filename: "b.bin" }],
          metadata: { source: "fake" },
        },
      ],
      history: [{ ...message, contextId, taskId: id }],
      metadata: { tags: ["a", "b"], score: 0.5, nothing: null },
    };
    this.tasks.set(id, task);
    return task;
  }

  private task(id: string): Json {
    const task = this.tasks.get(id);
    if (!task) throw new FakeA2AError(-32001, `Task ${id} not found`, errorInfo("TASK_NOT_FOUND", { taskId: id }));
    return task;
  }
}

function textOf(message: Json): string {
  return ((message.parts as Json[] | undefined) ?? [])
    .map((p) => p.text)
    .filter((t): t is string => typeof t === "string")
    .join("\n");
}

function withHistory(task: Json, historyLength: number | undefined): Json {
  if (historyLength === undefined) return task;
  const history = (task.history as Json[] | undefined) ?? [];
  const { history: _, ...rest } = task;
  return historyLength === 0 ? rest : { ...rest, history: history.slice(-historyLength) };
}

/**
 * The card with a GRPC interface added (1.0: `supportedInterfaces`; 0.3: `additionalInterfaces`), so that
 * the server core serves it (`transports: ["GRPC"]`) and `serveGrpc(core)` finds it listed.
 */
export function withGrpcInterface<T extends object>(card: T, url = "127.0.0.1:0"): T {
  const c = card as Record<string, unknown>;
  if (Array.isArray(c.supportedInterfaces)) {
    return { ...card, supportedInterfaces: [...(c.supportedInterfaces as unknown[]), { url, protocolBinding: "GRPC", protocolVersion: "1.0" }] };
  }
  return { ...card, additionalInterfaces: [...((c.additionalInterfaces as unknown[] | undefined) ?? [{ url: c.url, transport: "JSONRPC" }]), { url, transport: "GRPC" }] };
}
