/**
 * What a store that keeps patches (`TaskCommit.patch`, PostgreSQL and Redis) writes for each commit: the
 * whole task, or only the patch of an interim write, and the patches it reads back applied.
 *
 * The whole task is written again once the patches kept since it was last written add up to its own
 * length (at least MIN_WHOLE): the text written for a streamed artifact then grows like the artifact (a
 * geometric series of whole writes, plus the patches), and a read applies at most about one task's worth
 * of patches. A write that is not interim (the turn's last, a cancel, a task's creation) is always whole,
 * and drops the patches kept before.
 */
import { applyTaskPatch, type TaskPatchOperation } from "./task-patch.js";
import { storableJson } from "./task-json.js";
import { StoreError } from "./errors.js";
import { OldestKeys } from "./oldest-keys.js";
import type { TaskCommit } from "./contract.js";
import type { JsonObject } from "../json.js";

/** Below this length (in characters) of patches, a task is not written whole again. */
const MIN_WHOLE = 4096;

/** Tasks whose patch lengths an instance keeps at most (the oldest is dropped: its next write is whole). */
const MAX_TRACKED = 10_000;

/** What one commit writes: the task's text, or the patch's text (then the store keeps the task's text as it was). */
export type PatchPlan = { whole: string; interim: boolean } | { patch: string };

export class TaskPatchPolicy {
  /** Per running task: the length of its last whole text and of the patches written after it. */
  private readonly tasks = new Map<string, { whole: number; patches: number }>();
  private readonly oldest = new OldestKeys(this.tasks);

  /** Decides what `write` writes; call `written` once the store wrote it. */
  plan(taskId: string, write: TaskCommit): PatchPlan {
    const kept = this.tasks.get(taskId);
    if (kept !== undefined && write.interim === true && write.patch !== undefined && write.expectedVersion > 0) {
      const patch = storableJson(write.patch, `the patch of task "${taskId}"`);
      if (kept.patches + patch.length < Math.max(kept.whole, MIN_WHOLE)) return { patch };
    }
    const whole = write.text ?? write.interimText?.() ?? storableJson(write.task, `task "${taskId}"`);
    return { whole, interim: write.interim === true };
  }

  written(taskId: string, plan: PatchPlan): void {
    if ("patch" in plan) {
      const kept = this.tasks.get(taskId);
      if (kept) kept.patches += plan.patch.length;
    } else if (plan.interim) {
      this.tasks.delete(taskId);
      if (this.tasks.size >= MAX_TRACKED) this.tasks.delete(this.oldest.next() as string);
      this.tasks.set(taskId, { whole: plan.whole.length, patches: 0 });
    } else {
      this.tasks.delete(taskId);
    }
  }
}

/**
 * A stored task with the patches kept after its text applied, in order. A patch that does not fit the
 * task (the store was changed by hand) is a StoreError "failed" naming the task.
 */
export function withPatches(task: JsonObject, patches: ReadonlyArray<readonly TaskPatchOperation[]> | null | undefined, taskId: string): JsonObject {
  if (!patches || patches.length === 0) return task;
  try {
    for (const patch of patches) applyTaskPatch(task, patch);
    return task;
  } catch (error) {
    throw new StoreError(`task "${taskId}": its stored patches do not apply (${(error as Error).message})`, "failed", { cause: error });
  }
}
