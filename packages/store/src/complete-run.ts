import type { Message } from "@mariozechner/pi-ai";
import { addDelivery } from "./deliveries.js";
import { isPostgres } from "./dialect.js";
import { appendMessages } from "./messages.js";
import { preparedQuery, type Param } from "./prepared-query.js";
import { sessionStatements } from "./sessions.js";
import type { StoreContext } from "./store-context.js";
import { clearToolCheckpoints } from "./tool-checkpoints.js";
import { OPEN_INBOUND_STATUSES, type InboundStatus, type NewDelivery } from "./types.js";
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
    exec.write(async (tx): Promise<CompleteRunResult> => {
      const txCtx: StoreContext = { ...ctx, exec: tx };
      /** Why a run cannot be finished (the inbound is gone or no longer open), or undefined while it is open. */
      const notOpen = async (): Promise<CompleteRunResult | undefined> => {
        const inbound = await tx.first(statusOf(db, { id: input.inboundId }));
        if (inbound === undefined) return { ok: false, reason: "not_found" };
        if (inbound.status !== "running" && inbound.status !== "queued") return { ok: false, reason: "already_finished" };
        return undefined;
      };
      const sessions = sessionStatements(txCtx);
      if (input.compacted) {
        // Locks in the order of the plain finish (the inbound as it closes, then the session appendMessages touches):
        // session first here deadlocked on PostgreSQL with a plain finish of the same run at the same moment, which the
        // server breaks only after deadlock_timeout (a second), to be retried.
        if (isPostgres(db)) await tx.first(lockedStatusOf(db, { id: input.inboundId }));
        const parent = await sessions.selectById(input.sessionId);
        if (parent === undefined || parent.status !== "active") return (await notOpen()) ?? { ok: false, reason: "session_changed" };
      }
      // Closing the inbound comes first and only takes an open one: the write that makes a second finish of the same
      // run change nothing, without a read before it. Nothing was written when it changes no row. On PostgreSQL the
      // update locks the row, so a second finish at the same moment waits for this one and then changes nothing.
      const closed = await tx.run(close(db, { id: input.inboundId, status: input.status ?? "answered", now: ctx.now() }));
      if (closed.changes === 0) {
        const reason = await notOpen();
        if (reason === undefined) throw new Error(`inbound ${input.inboundId} is open but could not be closed`);
        return reason;
      }

      const sessionId = input.compacted ? (await sessions.startChild(input.sessionId)).id : input.sessionId;
      await appendMessages(txCtx, sessionId, input.messages);
      if (input.usage !== undefined) await addUsage(txCtx, sessionId, input.usage);
      if (input.usage !== undefined && input.usageOwner !== undefined) await addDailyUsage(txCtx, input.usageOwner, input.usage);
      for (const delivery of input.deliveries) {
        await addDelivery(txCtx, { ...delivery, inboundId: delivery.inboundId ?? input.inboundId });
      }
      await clearToolCheckpoints(txCtx, input.inboundId);
      return { ok: true, sessionId };
    });
}

const statusOf = preparedQuery((db, p: Param<{ id: number }>) => db.selectFrom("inbound").select("status").where("id", "=", p("id")));
const lockedStatusOf = preparedQuery((db, p: Param<{ id: number }>) => db.selectFrom("inbound").select("status").where("id", "=", p("id")).forUpdate());
const close = preparedQuery((db, p: Param<{ id: number; status: InboundStatus; now: number }>) =>
  db.updateTable("inbound").set({ status: p("status"), updated_at: p("now") }).where("id", "=", p("id")).where("status", "in", OPEN_INBOUND_STATUSES),
);
