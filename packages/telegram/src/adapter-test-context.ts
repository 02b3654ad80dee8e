import type { AbortableSleep } from "@hermes/gateway";

/** A `sleep` for the adapter that waits until the test calls `wake` (or the adapter stops), recording each pause. */
export function gatedSleep(): { sleep: AbortableSleep; wake: () => void; pauses: number[] } {
  const pauses: number[] = [];
  const sleeping: Array<() => void> = [];
  return {
    pauses,
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        pauses.push(ms);
        sleeping.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      }),
    wake: () => {
      for (const resolve of sleeping.splice(0)) resolve();
    },
  };
}
