/**
 * Health of an instance, for orchestrators and load balancers: liveness (the process answers) and
 * readiness (it takes calls: its store answers and it is not shutting down). The server core serves them
 * on HTTP (`/healthz`, `/readyz` by default; never listed in the agent card), and the gRPC server's
 * standard health service (grpc.health.v1) follows readiness, so that every binding says the same.
 */
import type { A2AStore } from "../stores/contract.js";

export interface HealthOptions {
  /** The liveness path (200 while the process answers); default "/healthz"; false: not served. */
  livenessPath?: string | false;
  /** The readiness path (200 when ready, else 503); default "/readyz"; false: not served. */
  readinessPath?: string | false;
  /** How long a readiness check waits for the store's answer, in ms; default 2_000. */
  storeTimeoutMs?: number;
  /** How often a watcher of readiness (the gRPC health service) checks the store, in ms; default 5_000. */
  checkEveryMs?: number;
}

/** What the readiness endpoint answers (its JSON body). */
export interface Readiness {
  /** "ready", or "not ready" (HTTP 503). */
  status: "ready" | "not ready";
  /** True once the server began to shut down (`close({ graceMs })`): it takes no new calls. */
  draining: boolean;
  store: { engine: string; status: "up" | "down"; error?: string };
}

/** What health is worked out from: the instance's store and whether it is shutting down (the task runtime). */
export interface HealthSource {
  readonly store: A2AStore;
  /** Aborted when the instance begins to shut down. */
  readonly draining: AbortSignal;
}

/** A task id no task has: a store without `ping` is asked for it (one round trip, like a ping). */
const PROBE_TASK = "a2a-readiness-probe";

export class Health {
  private readonly source: HealthSource;
  private readonly timeoutMs: number;
  private readonly checkEveryMs: number;

  constructor(source: HealthSource, options: Pick<HealthOptions, "storeTimeoutMs" | "checkEveryMs"> = {}) {
    this.source = source;
    this.timeoutMs = options.storeTimeoutMs ?? 2_000;
    this.checkEveryMs = options.checkEveryMs ?? 5_000;
  }

  /** Whether the instance is ready: the store answered within the timeout and the server is not shutting down. */
  async readiness(): Promise<Readiness> {
    const store = this.source.store;
    const draining = this.source.draining.aborted;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const check = store.ping ? store.ping() : store.tasks.get(PROBE_TASK).then(() => undefined);
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
      });
      await Promise.race([check, late]);
      return { status: draining ? "not ready" : "ready", draining, store: { engine: store.engine, status: "up" } };
    } catch (error) {
      return { status: "not ready", draining, store: { engine: store.engine, status: "down", error: error instanceof Error ? error.message : String(error) } };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Tells `listener` whether the instance is ready: now, whenever a check every `intervalMs` (default
   * `checkEveryMs`) finds it changed, and at once when shutting down begins. Returns the function that stops watching.
   */
  watch(listener: (ready: boolean) => void, intervalMs = this.checkEveryMs): () => void {
    let last: boolean | undefined;
    let stopped = false;
    const tell = (ready: boolean) => {
      if (stopped || ready === last) return;
      last = ready;
      listener(ready);
    };
    const check = () => void this.readiness().then((r) => tell(r.status === "ready"));
    const onDrain = () => tell(false);
    check();
    const timer = setInterval(check, intervalMs);
    (timer as { unref?: () => void }).unref?.();
    this.source.draining.addEventListener("abort", onDrain, { once: true });
    return () => {
      stopped = true;
      clearInterval(timer);
      this.source.draining.removeEventListener("abort", onDrain);
    };
  }
}
