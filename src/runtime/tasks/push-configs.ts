/**
 * Push notification configs of tasks: whether they are enabled, checking a webhook before it is kept
 * (the SSRF guard), the version's config ids, saving a request's config once its task exists, and the
 * push notifications of a task's new state (one per config) that a commit queues in the outbox.
 */
import type { ServerTelemetry } from "../telemetry-hooks.js";
import { A2AError } from "../a2a-error.js";
import { isObject, type JsonObject } from "../json.js";
import type { ProtocolShapes } from "../protocol-shapes.js";
import type { A2AStore, OutboxMessage } from "../stores/contract.js";
import { pushConfigId } from "../stores/task-json.js";
import { JSON_RPC_ERROR } from "../wire/jsonrpc.js";
import { asWritten, type Execution } from "./execution.js";
import type { RuntimeLogger } from "./executor.js";
import { PushSender } from "./push-sender.js";
import { UnsafeWebhookError } from "./push-addresses.js";
import { retryUnavailable } from "./retry.js";

/** The body (and content type) of a push notification of `task` to `config`, or undefined for the version's own. */
export type PushPayloadHook = (config: JsonObject, task: JsonObject) => { readonly body: unknown; readonly contentType?: string } | undefined;

export interface PushConfigsOptions {
  readonly shapes: ProtocolShapes;
  readonly store: A2AStore;
  readonly logger: RuntimeLogger;
  /** Whether the card has the `pushNotifications` capability. */
  readonly enabled: () => boolean;
  /** Whether push notifications are sent (an outbox worker runs): without, configs are kept, none is notified. */
  readonly delivers: boolean;
  readonly pushSender: PushSender | undefined;
  readonly pushPayload: PushPayloadHook | undefined;
  readonly shutdown: AbortSignal;
  /** Telemetry hooks: a notification keeps the trace context of the turn that queued it (its `traceparent`). */
  readonly telemetry?: ServerTelemetry | undefined;
}

export class PushConfigs {
  private readonly shapes: ProtocolShapes;
  private readonly store: A2AStore;
  private readonly logger: RuntimeLogger;
  private readonly enabled: () => boolean;
  private readonly delivers: boolean;
  private readonly pushSender: PushSender | undefined;
  private readonly pushPayload: PushPayloadHook | undefined;
  private readonly shutdown: AbortSignal;
  private readonly telemetry: ServerTelemetry | undefined;

  constructor(options: PushConfigsOptions) {
    this.telemetry = options.telemetry;
    this.shapes = options.shapes;
    this.store = options.store;
    this.logger = options.logger;
    this.enabled = options.enabled;
    this.delivers = options.delivers;
    this.pushSender = options.pushSender;
    this.pushPayload = options.pushPayload;
    this.shutdown = options.shutdown;
  }

  pushEnabled(): void {
    if (!this.enabled()) {
      throw new A2AError(this.shapes.profile.errorCodes["PushNotificationNotSupported"] ?? JSON_RPC_ERROR.invalidRequest, "Push Notification is not supported");
    }
  }

  async checkWebhook(config: JsonObject): Promise<void> {
    if (typeof config["url"] !== "string") throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params", { reason: "the push notification config needs a url" });
    try {
      await (this.pushSender ?? new PushSender()).checkUrl(config["url"]);
    } catch (error) {
      if (error instanceof UnsafeWebhookError) {
        // The caller learns why in general terms; the resolved address and the allow-list hint go to the log.
        this.logger.warn?.(`a2a: refused a push notification webhook: ${error.message}`);
        throw new A2AError(JSON_RPC_ERROR.invalidParams, "Invalid params: webhook URL refused", { url: error.url, reason: error.publicMessage });
      }
      throw error;
    }
  }

  /** Whether the version's push configs carry an id (0.2.1+; one config per task before). */
  get pushConfigsHaveIds(): boolean {
    return this.shapes.has("PushNotificationConfig", "id") || (this.shapes.flatPushConfigs && this.shapes.has("TaskPushNotificationConfig", "id"));
  }

  /** The config with its id: the one given, else the task id (as the 0.3 SDKs do, so a get naming only the task finds it). */
  withConfigId(config: JsonObject, taskId: string): JsonObject {
    if (!this.pushConfigsHaveIds) {
      const { id: _ignored, ...rest } = config;
      return rest;
    }
    return typeof config["id"] === "string" && config["id"] !== "" ? config : { ...config, id: taskId };
  }

  /**
   * Saves the push config a request carried, once its task exists: retried while the engine is
   * unavailable; when it still fails, the execution keeps it (its notifications still go to it) and
   * tries again before its next write.
   */
  async save(execution: Execution): Promise<void> {
    const config = execution.pendingPushConfig;
    if (!config) return;
    try {
      await retryUnavailable(() => this.store.pushConfigs.set(execution.taskId, config), this.shutdown);
      if (execution.pendingPushConfig === config) execution.pendingPushConfig = undefined;
    } catch (error) {
      this.logger.error(`a2a: saving the push notification config of task ${execution.taskId} failed (tried again at its next update)`, error);
    }
  }


  /** The push configs of an execution's task (none without an outbox: push notifications are not sent). */
  async of(execution: Execution): Promise<readonly JsonObject[]> {
    if (!this.delivers) return [];
    const pending = execution.pendingPushConfig;
    if (execution.version === 0) return pending ? [pending] : [];
    const saved = await this.store.pushConfigs.list(execution.taskId);
    // A config whose save failed (kept by the execution until it is saved) is notified all the same.
    return pending && !saved.some((c) => pushConfigId(execution.taskId, c) === pushConfigId(execution.taskId, pending)) ? [...saved, pending] : saved;
  }

  /** The push notifications of a task's new state: one per config. */
  pushesOf(execution: Execution, written: JsonObject, configs: readonly JsonObject[], lengths: ReadonlyMap<unknown[], number> | undefined): OutboxMessage[] {
    // The outbox keeps the payload until it is delivered: a task whose parts the turn goes on appending to
    // is sent as a copy of what this write holds.
    const task = asWritten(written, lengths, execution.taskId);
    // 1.0 posts a StreamResponse (`{ task }`) as application/a2a+json; 0.x the bare task; a config the
    // compat hook claims (registered by a client of the other version) gets that version's payload.
    const ownBody = this.shapes.wrap("stream", task);
    const out: OutboxMessage[] = [];
    const traceparent = this.telemetry?.traceparent();
    for (const config of configs) {
      if (typeof config["url"] !== "string") continue;
      const custom = this.pushPayload?.(config, task);
      const body = custom ? custom.body : ownBody;
      const contentType = custom ? custom.contentType : ownBody !== task ? "application/a2a+json" : undefined;
      const target: JsonObject = {
        url: config["url"],
        ...(typeof config["token"] === "string" ? { token: config["token"] } : {}),
        ...(isObject(config["authentication"])
          ? {
              authentication: {
                schemes: Array.isArray(config["authentication"]["schemes"])
                  ? config["authentication"]["schemes"].filter((s): s is string => typeof s === "string")
                  : typeof config["authentication"]["scheme"] === "string"
                    ? [config["authentication"]["scheme"]]
                    : [],
                ...(typeof config["authentication"]["credentials"] === "string" ? { credentials: config["authentication"]["credentials"] } : {}),
              },
            }
          : {}),
        ...(contentType !== undefined ? { contentType } : {}),
        ...(traceparent !== undefined ? { traceparent } : {}),
      };
      out.push({ taskId: execution.taskId, target, payload: body as JsonObject });
    }
    return out;
  }
}
