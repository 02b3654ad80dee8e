/**
 * Tells this process's scheduler that a job was created, so a job due in seconds is not left to the next poll. A job
 * created in another process (a BullMQ worker's run) is found by that poll instead.
 */
const listeners = new Set<() => void>();

export function onCronJobsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function cronJobsChanged(): void {
  for (const listener of listeners) listener();
}
