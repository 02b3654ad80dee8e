import type { Histogram, Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";

const GAVE_UP_NOTICE = "Sorry, I couldn't process your message because of an internal error. The operator's log has the cause; please try again.";
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 60_000;

interface Progress {
  timed: boolean;
  noticed: boolean;
}

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
  // Shared by the tries of one settling: a try cut off after the timing or the notice must not repeat them.
  const settleOnce = async (inboundId: number, outcome: "done" | "failed", progress: Progress): Promise<void> => {
    const record = await deps.store.inbound.get(inboundId);
    if (!record) return;
    if (!progress.timed) deps.runDuration.observe((Date.now() - record.receivedAt) / 1000, { outcome });
    progress.timed = true;
    const message = JSON.parse(record.payload) as InboundMessage;
    if (outcome === "failed" && (record.status === "queued" || record.status === "running")) {
      // The notice first: a process that dies in between and settles again sends it twice rather than never.
      if (!progress.noticed) await deps.notice(message, GAVE_UP_NOTICE);
      progress.noticed = true;
      await deps.store.inbound.setStatus(inboundId, "failed");
    }
    deps.markDone(message);
  };
  const attempt = async (inboundId: number, outcome: "done" | "failed", progress: Progress, delayMs: number): Promise<void> => {
    try {
      await settleOnce(inboundId, outcome, progress);
    } catch (error) {
      deps.logger.error("could not settle a finished run; trying again", { inboundId, outcome, retryInMs: delayMs, error });
      const timer = setTimeout(() => void attempt(inboundId, outcome, progress, Math.min(delayMs * 2, MAX_RETRY_MS)), delayMs);
      timer.unref();
    }
  };
  return (inboundId: number, outcome: "done" | "failed"): Promise<void> => attempt(inboundId, outcome, { timed: false, noticed: false }, deps.retryMs ?? FIRST_RETRY_MS);
}
