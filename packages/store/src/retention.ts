import { sql } from "kysely";
import { isPostgres } from "./dialect.js";
import type { Query } from "./sql-runner.js";
import type { StoreContext } from "./store-context.js";
import { UNFINISHED_INBOUND_STATUSES, type InboundStatus } from "./types.js";

export const DAY_MS = 86_400_000;

export interface RetentionPolicy {
  /** Epoch milliseconds the windows count back from. */
  now: number;
  /** Finished operational records (inbound log, outbox, pairing) older than this many days are deleted. */
  days: number;
  /** When set, conversations not updated for this many days are deleted with their messages; kept otherwise. */
  historyDays?: number;
  /** Stops between batches (at shutdown); what was deleted so far stays deleted. */
  signal?: AbortSignal;
}

/** How many rows each kind of record lost. */
export interface RetentionCounts {
  inbound: number;
  deliveries: number;
  pairingRequests: number;
  pairingFailures: number;
  sessions: number;
  messages: number;
  /** Shared files of sessions that no longer exist (attachments, saved tool output); only present when some went. */
  sessionFiles?: number;
  /** Messages streamed replies occupied (their ids, not the messages); only present when some went. */
  streamParts?: number;
  /** Decided and expired approvals; only present when some went. */
  approvals?: number;
  /** Lineage of sub-agents that ended before the window; only present when some went. Cron jobs are never pruned. */
  subagentRuns?: number;
}

export interface RetentionRepository {
  /**
   * Deletes what the policy no longer keeps, a batch per transaction, yielding between batches so a large backlog
   * neither blocks this process nor holds the write lock other processes wait for.
   */
  prune(policy: RetentionPolicy): Promise<RetentionCounts>;
}

/**
 * Only finished messages go. Deduplication stays intact because a row lives for the whole window after its last
 * change, and platforms redeliver an event within minutes or hours (Telegram keeps updates for 24 hours), never
 * after a day; unfinished rows (received, queued, running) are work still to do and are never touched.
 */
const FINISHED_INBOUND: InboundStatus[] = ["answered", "failed", "cancelled", "ignored"];
const FINISHED_DELIVERIES = ["sent", "failed"];

const BATCH = 500;
const SESSION_BATCH = 50;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function createRetentionRepository(ctx: StoreContext): RetentionRepository {
  const { db, exec } = ctx;
  const deleteInBatches = async (signal: AbortSignal | undefined, deleteBatch: () => Query<unknown>): Promise<number> => {
    let total = 0;
    while (signal?.aborted !== true) {
      const deleted = (await exec.run(deleteBatch())).changes;
      total += deleted;
      if (deleted < BATCH) break;
      await nextTurn();
    }
    return total;
  };

  const pruneInbound = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(
      signal,
      () =>
        db
          .deleteFrom("inbound")
          .where("id", "in", (eb) =>
            eb
              .selectFrom("inbound")
              .select("id")
              .where("status", "in", FINISHED_INBOUND)
              .where("updated_at", "<", cutoff)
              .orderBy("id")
              .limit(BATCH),
          ),
    );

  const pruneDeliveries = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(
      signal,
      () =>
        db
          .deleteFrom("deliveries")
          .where("id", "in", (eb) =>
            eb
              .selectFrom("deliveries")
              .select("id")
              .where("status", "in", FINISHED_DELIVERIES)
              .where("updated_at", "<", cutoff)
              .orderBy("id")
              .limit(BATCH),
          ),
    );

  // Approved requests are deleted at approval; what is left finishes by expiring. Approved users are never touched.
  const prunePairingRequests = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(
      signal,
      () =>
        db
          .deleteFrom("pairing_requests")
          .where("id", "in", (eb) =>
            eb.selectFrom("pairing_requests").select("id").where("expires_at", "<", cutoff).orderBy("id").limit(BATCH),
          ),
    );

  const prunePairingFailures = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(
      signal,
      () =>
        db
          .deleteFrom("pairing_failures")
          .where("id", "in", (eb) => eb.selectFrom("pairing_failures").select("id").where("at", "<", cutoff).orderBy("id").limit(BATCH)),
    );

  /** Messages go first and explicitly, so the full-text index's delete trigger sees every one of them. */
  const pruneHistory = async (cutoff: number, signal?: AbortSignal): Promise<{ sessions: number; messages: number }> => {
    let sessions = 0;
    let messages = 0;
    while (signal?.aborted !== true) {
      const batch = await exec.write(async (tx) => {
        const idle = (ids?: string[]) => {
          const query = db
            .selectFrom("sessions")
            .select("id")
            .where("updated_at", "<", cutoff)
            // A long-idle conversation that just got a message is in use: its run appends to it when it finishes.
            .where("key", "not in", (eb) => eb.selectFrom("inbound").select("session_key").where("status", "in", UNFINISHED_INBOUND_STATUSES).where("session_key", "is not", null));
          return ids === undefined ? query : query.where("id", "in", ids);
        };
        const ids = (await tx.all(idle().orderBy("id").limit(SESSION_BATCH))).map((row) => row.id);
        if (ids.length === 0) return { sessions: 0, messages: 0 };
        if (isPostgres(db)) {
          // One statement asks again, and both deletes see the same snapshot: under READ COMMITTED a message for one of
          // these conversations may have come in since the read above (that conversation is in use and stays, whole),
          // and one coming in between two statements would leave a conversation kept without its messages.
          const gone = await tx.first(
            db
              .with("gone_sessions", (qc) => qc.deleteFrom("sessions").where("id", "in", idle(ids)).returning("id"))
              .with("gone_messages", (qc) => qc.deleteFrom("messages").where("session_id", "in", (eb) => eb.selectFrom("gone_sessions").select("gone_sessions.id")).returning("messages.id"))
              .selectNoFrom((eb) => [
                eb.selectFrom("gone_sessions").select((c) => c.fn.countAll<number>().as("n")).as("sessions"),
                eb.selectFrom("gone_messages").select((c) => c.fn.countAll<number>().as("n")).as("messages"),
              ]),
          );
          return { sessions: Number(gone?.sessions ?? 0), messages: Number(gone?.messages ?? 0) };
        }
        // SQLite holds the write lock for the whole transaction: nothing came in since the read.
        const deletedMessages = (await tx.run(db.deleteFrom("messages").where("session_id", "in", ids))).changes;
        const deletedSessions = (await tx.run(db.deleteFrom("sessions").where("id", "in", ids))).changes;
        return { sessions: deletedSessions, messages: deletedMessages };
      });
      sessions += batch.sessions;
      messages += batch.messages;
      if (batch.sessions < SESSION_BATCH) break;
      await nextTurn();
    }
    return { sessions, messages };
  };

  /**
   * A session's files (shared-files.ts) carry its key, not its id (an attachment is shared before its message is
   * routed to a session). Past the operational window, a file goes once no session of its key could be its own: none
   * is left, or every one left started more than the window after the file, so the file's session was deleted (history
   * retention, after /new made a newer one). That also drops the files of messages that never got a session (a
   * stranger's file refused by authorization); the window keeps those of a message still on its way to its session.
   */
  const pruneSessionFiles = (cutoff: number, windowMs: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(
      signal,
      () =>
        db
          .deleteFrom("shared_files")
          .where("path", "in", (eb) =>
            eb
              .selectFrom("shared_files")
              .select("path")
              .where("session_key", "is not", null)
              .where("updated_at", "<", cutoff)
              .where(({ eb, not, exists, selectFrom }) =>
                not(
                  exists(
                    selectFrom("sessions")
                      .select("sessions.id")
                      .whereRef("sessions.key", "=", "shared_files.session_key")
                      .where("sessions.created_at", "<=", eb(eb.ref("shared_files.updated_at"), "+", windowMs)),
                  ),
                ),
              )
              .orderBy("path")
              .limit(BATCH),
          ),
    );

  const pruneStreamParts = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(signal, () =>
      db
        .deleteFrom("stream_parts")
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple("inbound_id", "part"),
            "in",
            selectFrom("stream_parts").select(["inbound_id", "part"]).where("created_at", "<", cutoff).orderBy("inbound_id").orderBy("part").limit(BATCH).$asTuple("inbound_id", "part"),
          ),
        ),
    );

  /**
   * Approvals finish by being decided or by expiring unanswered. A grant for the conversation stays while its session
   * is active: "approve for this conversation" holds for as long as the conversation does.
   */
  const pruneApprovals = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(signal, () =>
      db
        .deleteFrom("approvals")
        .where("id", "in", (eb) =>
          eb
            .selectFrom("approvals")
            .select("approvals.id")
            .where((w) =>
              w.or([
                w.and([w("approvals.status", "!=", "pending"), w("approvals.decided_at", "<", cutoff)]),
                w.and([w("approvals.status", "=", "pending"), w("approvals.expires_at", "<", cutoff)]),
              ]),
            )
            .where(({ and, eb: e, not, exists, selectFrom }) =>
              not(
                and([
                  e("approvals.status", "=", "approved"),
                  e("approvals.scope", "=", "session"),
                  exists(selectFrom("sessions").select("sessions.id").whereRef("sessions.id", "=", "approvals.session_id").where("sessions.status", "=", "active")),
                ]),
              ),
            )
            .orderBy("approvals.id")
            .limit(BATCH),
        ),
    );

  const pruneSubagentRuns = (cutoff: number, signal?: AbortSignal): Promise<number> =>
    deleteInBatches(signal, () =>
      db
        .deleteFrom("subagent_runs")
        .where("id", "in", (eb) => eb.selectFrom("subagent_runs").select("id").where("ended_at", "<", cutoff).orderBy("ended_at").limit(sql.lit(BATCH))),
    );

  return {
    async prune(policy) {
      const cutoff = cutoffFor(policy.now, policy.days, "days");
      const historyCutoff = policy.historyDays === undefined ? undefined : cutoffFor(policy.now, policy.historyDays, "historyDays");
      const { signal } = policy;
      const inbound = await pruneInbound(cutoff, signal);
      const deliveries = await pruneDeliveries(cutoff, signal);
      const pairingRequests = await prunePairingRequests(cutoff, signal);
      const pairingFailures = await prunePairingFailures(cutoff, signal);
      const history = historyCutoff === undefined ? { sessions: 0, messages: 0 } : await pruneHistory(historyCutoff, signal);
      const sessionFiles = await pruneSessionFiles(cutoff, policy.days * DAY_MS, signal);
      const streamParts = await pruneStreamParts(cutoff, signal);
      const approvals = await pruneApprovals(cutoff, signal);
      const subagentRuns = await pruneSubagentRuns(cutoff, signal);
      return {
        inbound,
        deliveries,
        pairingRequests,
        pairingFailures,
        ...history,
        ...(sessionFiles > 0 ? { sessionFiles } : {}),
        ...(streamParts > 0 ? { streamParts } : {}),
        ...(approvals > 0 ? { approvals } : {}),
        ...(subagentRuns > 0 ? { subagentRuns } : {}),
      };
    },
  };
}

function cutoffFor(now: number, days: number, name: string): number {
  // Configuration parsing guarantees positive whole days; anything else here is a programming error.
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`retention ${name} must be a positive integer, got ${String(days)}`);
  return now - days * DAY_MS;
}
