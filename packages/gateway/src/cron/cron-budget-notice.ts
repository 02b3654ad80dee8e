import { utcDayOf, type InboundRecord, type InboundRepository } from "@hermes/store";
import { isCronRunKey } from "./cron-run-key.js";

/**
 * Whether a run refused for its creator's daily budget tells the chat so. A chat's message always does; a scheduled
 * task's slot only the first time on its UTC day, so a task that runs every few minutes does not post the same notice
 * at every slot until midnight. That the notice went is kept as an inbound record of its own (never queued, so no run
 * and no recovery sees it), whose id deduplicates like a platform's message id: it holds across restarts and between
 * gateways.
 */
export async function tellsBudgetReached(inbound: Pick<InboundRepository, "recordIfNew">, record: InboundRecord, now: number): Promise<boolean> {
  const key = record.sessionKey ?? "";
  if (!isCronRunKey(key)) return true;
  const noted = await inbound.recordIfNew({ platform: record.platform, messageId: `budget:${key}:${utcDayOf(now)}`, payload: record.payload, status: "ignored" });
  return noted.created;
}
