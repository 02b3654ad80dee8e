import type { Logger } from "@hermes/agent";
import type { SessionLease } from "./run-processor.js";

/**
 * Keeps a session lease alive while its runs go on. If renewal fails (another worker took the session after this one
 * stalled, or Redis stayed unreachable), `lost` aborts: the runs stop and finish nothing, because the new owner will.
 */
export function guardLease(lease: SessionLease, options: { leaseMs: number; sessionKey: string; logger: Logger }): { lost: AbortSignal; stop(): void } {
  const controller = new AbortController();
  let failures = 0;
  const timer = setInterval(() => {
    lease.renew().then(
      (held) => {
        failures = held ? 0 : failures + 1;
        if (!held) lose("the lease was taken over");
      },
      (error: unknown) => {
        failures += 1;
        options.logger.warn("session lease renewal failed", { sessionKey: options.sessionKey, error });
        // The lease lives leaseMs; renewals run every third of it, so two misses in a row leave it about to expire.
        if (failures >= 2) lose("the lease could not be renewed");
      },
    );
  }, Math.max(1_000, Math.floor(options.leaseMs / 3)));
  const lose = (why: string): void => {
    if (controller.signal.aborted) return;
    options.logger.error("session lease lost; stopping this run", { sessionKey: options.sessionKey, why });
    controller.abort(new Error(`session lease lost: ${why}`));
  };
  return { lost: controller.signal, stop: () => clearInterval(timer) };
}
