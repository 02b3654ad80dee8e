import type { Histogram, Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";

const GAVE_UP_NOTICE = "Sorry, I couldn't process your message because of an internal error. The operator's log has the cause; please try again.";
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;

/**
 * What the active gateway does once a run's job settled: it times the run, and when the queue gave up on a job whose
 * message is still open, tells the person instead of staying silent. Settling needs the database; while it is away the
 * settling is tried again (5 s, doubling up to a minute) until it works, or the person would never hear back.
 */
export function runSettlement(deps: {
  store: Pick<Store, "inbound">;
  runDuration: Histogram;
  notice(message: InboundMessage, text: string): Promise<void>;
  markDone(message: InboundMessage): void;
  logger: Logger;
  retryMs?: number;
}) {
  const settleOnce = async (inboundId: number, outcome: "done" | "failed"): Promise<void> => {
    const record = await deps.store.inbound.get(inboundId);
    if (!record) return;
    deps.runDuration.observe((Date.now() - record.receivedAt) / 1000, { outcome });
    const message = JSON.parse(record.payload) as InboundMessage;
    if (outcome === "failed" && (record.status === "queued" || record.status === "running")) {
      // The notice first: a settling cut off in between and tried again sends it twice rather than never.
      await deps.notice(message, GAVE_UP_NOTICE);
      await deps.store.inbound.setStatus(inboundId, "failed");
    }
    deps.markDone(message);
  };
  const settle = async (inboundId: number, outcome: "done" | "failed", delayMs = deps.retryMs ?? FIRST_RETRY_MS): Promise<void> => {
    try {
      await settleOnce(inboundId, outcome);
    } catch (error) {
      deps.logger.error("could not settle a finished run; trying again", { inboundId, outcome, retryInMs: delayMs, error });
      const timer = setTimeout(() => void settle(inboundId, outcome, Math.min(delayMs * 2, MAX_RETRY_MS)), delayMs);
      timer.unref();
    }
  };
  return settle;
}
