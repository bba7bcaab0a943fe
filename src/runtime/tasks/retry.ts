/** Retrying a store call while the engine is unavailable: the pauses every part of the task runtime uses. */
import { isStoreError, StoreUnavailableError } from "../stores/errors.js";

/** Tries of a commit (or another store call) while the engine is unreachable, with a doubling pause from 100 ms. */
export const MAX_UNAVAILABLE = 5;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A store call retried while the engine is unavailable (the pauses of a commit's retries); other errors at once, and none after shutdown. */
export async function retryUnavailable<T>(call: () => Promise<T>, shutdown: AbortSignal): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await call();
    } catch (error) {
      if (!isStoreError(error, StoreUnavailableError) || tries > MAX_UNAVAILABLE || shutdown.aborted) throw error;
      await sleep(100 * 2 ** (tries - 1));
    }
  }
}
