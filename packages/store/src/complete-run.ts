import type { Message } from "@mariozechner/pi-ai";
import { insertDelivery } from "./deliveries.js";
import { appendMessages } from "./messages.js";
import { sessionStatements } from "./sessions.js";
import type { StoreContext } from "./store-context.js";
import { clearToolCheckpoints } from "./tool-checkpoints.js";
import type { NewDelivery } from "./types.js";
import { addDailyUsage, addUsage, type RunUsage, type UsageOwner } from "./usage.js";

export interface CompleteRunInput {
  inboundId: number;
  sessionId: string;
  /** The run's new transcript entries, appended after the stored ones. */
  messages: readonly Message[];
  usage?: RunUsage;
  /** The person whose message ran: `usage` is also added to their total for today (daily budgets). */
  usageOwner?: UsageOwner;
  /** Replies and notices; one without an inboundId answers this run's inbound. */
  deliveries: readonly NewDelivery[];
  /** Final status of the inbound (default "answered"). */
  status?: "answered" | "failed";
  /**
   * The run compressed the conversation: `sessionId` (the parent) is ended and `messages` (the whole rewritten
   * transcript) go into a new child session — in the same transaction, and only while the parent is still the key's
   * active session (a /new during the run wins).
   */
  compacted?: boolean;
}

export type CompleteRunResult =
  | { ok: true; sessionId: string }
  | { ok: false; reason: "already_finished" | "not_found" | "session_changed" };

export type CompleteRun = (input: CompleteRunInput) => Promise<CompleteRunResult>;

/**
 * Finishes a run in one transaction, and only once: when two workers finish the same inbound (a crashed run that was
 * taken up again, a redelivered job), the first commits transcript, usage, replies and status together and the
 * second changes nothing. That is what makes a reply go out exactly once.
 */
export function createCompleteRun(ctx: StoreContext): CompleteRun {
  const { db, exec } = ctx;
  return async (input) =>
    exec.write((): CompleteRunResult => {
      const inbound = exec.first(db.selectFrom("inbound").select("status").where("id", "=", input.inboundId));
      if (inbound === undefined) return { ok: false, reason: "not_found" };
      if (inbound.status !== "running" && inbound.status !== "queued") return { ok: false, reason: "already_finished" };

      let sessionId = input.sessionId;
      if (input.compacted) {
        const sessions = sessionStatements(ctx);
        const parent = sessions.selectById(input.sessionId);
        if (parent === undefined || parent.status !== "active") return { ok: false, reason: "session_changed" };
        sessionId = sessions.startChild(parent.id).id;
      }
      appendMessages(ctx, sessionId, input.messages);
      if (input.usage !== undefined) addUsage(ctx, sessionId, input.usage);
      if (input.usage !== undefined && input.usageOwner !== undefined) addDailyUsage(ctx, input.usageOwner, input.usage);
      for (const delivery of input.deliveries) {
        insertDelivery(ctx, { ...delivery, inboundId: delivery.inboundId ?? input.inboundId });
      }
      clearToolCheckpoints(ctx, input.inboundId);
      exec.run(
        db
          .updateTable("inbound")
          .set({ status: input.status ?? "answered", updated_at: ctx.now() })
          .where("id", "=", input.inboundId),
      );
      return { ok: true, sessionId };
    });
}
