import type { Histogram } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { InboundMessage } from "../core/inbound.js";

const GAVE_UP_NOTICE = "Sorry, I couldn't process your message because of an internal error. The operator's log has the cause; please try again.";

/**
 * What the active gateway does once a run's job settled: it times the run, and when the queue gave up on a job whose
 * message is still open, tells the person instead of staying silent.
 */
export function runSettlement(deps: {
  store: Pick<Store, "inbound">;
  runDuration: Histogram;
  notice(message: InboundMessage, text: string): Promise<void>;
  markDone(message: InboundMessage): void;
}) {
  return async (inboundId: number, outcome: "done" | "failed"): Promise<void> => {
    const record = await deps.store.inbound.get(inboundId);
    if (!record) return;
    deps.runDuration.observe((Date.now() - record.receivedAt) / 1000, { outcome });
    const message = JSON.parse(record.payload) as InboundMessage;
    if (outcome === "failed" && (record.status === "queued" || record.status === "running")) {
      await deps.store.inbound.setStatus(inboundId, "failed");
      await deps.notice(message, GAVE_UP_NOTICE);
    }
    deps.markDone(message);
  };
}
