import type { Store } from "@hermes/store";

/**
 * Resolves once every message of the session is answered and its replies are delivered — or, with
 * `orWaitingForApproval`, once a run of it waits on an approval whose prompt went out. Polled: the state is in the
 * store, written by whichever process runs and delivers.
 */
export async function waitIdle(store: Pick<Store, "inbound" | "deliveries" | "approvals">, sessionKey: string, options: { orWaitingForApproval?: boolean } = {}): Promise<void> {
  for (;;) {
    const busy = await store.inbound.unanswered(sessionKey);
    const undelivered = (await store.deliveries.pending(1_000)).some((d) => d.sessionKey === sessionKey);
    if (busy === 0 && !undelivered) return;
    if (options.orWaitingForApproval && !undelivered && (await store.approvals.latestPending(sessionKey, Date.now()))) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
