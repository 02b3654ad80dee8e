import { Job, type Queue } from "bullmq";

/**
 * Promotes each job that is still delayed; one that ran, finished or was promoted meanwhile is left alone. BullMQ's
 * promote script itself refuses a job that is not in the delayed set, so one call per job answers both (reading the
 * job first and asking its state would be two more round trips, and could change in between anyway).
 */
export async function promoteDelayed(queue: Queue, jobIds: readonly string[]): Promise<number> {
  let promoted = 0;
  for (const jobId of jobIds) {
    try {
      // A handle on the id is all promote needs: BullMQ's script reads the job's priority itself, so we read nothing.
      await new Job(queue, "run", {}, {}, jobId).promote();
      promoted += 1;
    } catch (error) {
      if (!isNotDelayedError(error)) throw error;
    }
  }
  return promoted;
}

// BullMQ's wording for its promote script's -3 (finished-errors.js); the session-waiters test's unknown and waiting
// jobs fail if an upgrade changes it.
function isNotDelayedError(error: unknown): boolean {
  return error instanceof Error && error.message.includes("is not in the delayed state");
}
