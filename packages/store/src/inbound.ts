import { sql, type Selectable } from "kysely";
import type { InboundTable } from "./database.js";
import { preparedQuery, type Param } from "./prepared-query.js";
import type { StoreContext } from "./store-context.js";
import { clearToolCheckpoints } from "./tool-checkpoints.js";
import { OPEN_INBOUND_STATUSES, UNFINISHED_INBOUND_STATUSES, type InboundRecord, type InboundStatus, type InboundTraceContext } from "./types.js";

export interface NewInbound {
  platform: string;
  messageId: string;
  payload: string;
  sessionKey?: string;
  status: InboundStatus;
  /** Saved with the message in the same write, so it is there for whoever runs or answers it. */
  traceContext?: Partial<InboundTraceContext>;
}

/** An inbound message just claimed for a run (its status is now 'running'). */
export interface ClaimedInbound extends InboundRecord {
  /**
   * It was 'running' already: an earlier run of it was cut short (a crash, a lost lease) and may have saved tool
   * checkpoints and model replies. A 'queued' one never ran, and only a run that claimed it saves any.
   */
  resumed: boolean;
}

export interface InboundRepository {
  /** Deduplicates on (platform, messageId): a redelivered platform event returns the first record, unchanged. */
  recordIfNew(input: NewInbound): Promise<{ created: boolean; record: InboundRecord }>;
  get(id: number): Promise<InboundRecord | undefined>;
  setStatus(id: number, status: InboundStatus): Promise<void>;
  /** Replaces the saved message, before its run is queued (the gateway adds a voice message's transcript). */
  setPayload(id: number, payload: string): Promise<void>;
  /**
   * The oldest 'running' or 'queued' inbound of the key, now 'running'. The caller holds the session lock, so a
   * 'running' one can only be left over from a crashed run and is taken up again.
   */
  claimNext(sessionKey: string): Promise<ClaimedInbound | undefined>;
  /** Queued plus running. */
  unanswered(sessionKey: string): Promise<number>;
  /** Queued → cancelled; returns how many. */
  cancelQueued(sessionKey: string): Promise<number>;
  /** Newest first. */
  recent(limit: number): Promise<InboundRecord[]>;
  /** Messages not finished yet (received, queued or running), oldest first: what a restart must pick up. */
  unfinished(limit: number): Promise<InboundRecord[]>;
}


export function createInboundRepository(ctx: StoreContext): InboundRepository {
  const { db, exec } = ctx;

  const selectById = async (id: number): Promise<InboundRecord | undefined> => {
    const row = await exec.first(byId(db, { id }));
    return row && toInboundRecord(row);
  };

  return {
    async recordIfNew(input) {
      return exec.write(async (tx) => {
        const now = ctx.now();
        const inserted = await tx.first(
          insertIfNew(db, {
            platform: input.platform,
            messageId: input.messageId,
            sessionKey: input.sessionKey ?? null,
            status: input.status,
            payload: input.payload,
            now,
            traceparent: input.traceContext?.traceparent ?? null,
            tracestate: input.traceContext?.tracestate ?? null,
          }),
        );
        if (inserted) return { created: true, record: toInboundRecord(inserted) };
        const existing = await tx.first(byPlatformMessage(db, { platform: input.platform, messageId: input.messageId }));
        if (existing === undefined) throw new Error("inbound conflict without an existing row");
        return { created: false, record: toInboundRecord(existing) };
      });
    },

    async get(id) {
      return selectById(id);
    },

    async setStatus(id, status) {
      if (UNFINISHED_INBOUND_STATUSES.includes(status)) {
        await exec.run(updateStatus(db, { id, status, now: ctx.now() }));
        return;
      }
      // A message given up on outside completeRun (a queue failure, a failed run not recorded) is not re-run either.
      await exec.write(async (tx) => {
        await tx.run(updateStatus(db, { id, status, now: ctx.now() }));
        await clearToolCheckpoints({ ...ctx, exec: tx }, id);
      });
    },

    async setPayload(id, payload) {
      await exec.run(db.updateTable("inbound").set({ payload, updated_at: ctx.now() }).where("id", "=", id));
    },

    async claimNext(sessionKey) {
      // No write transaction: finding nothing (the end of every run loop) then takes no write lock, and the claim
      // itself is one UPDATE, atomic on its own, that only takes the message in the status it was read in. The caller
      // holds the session lock, so the oldest open message can only change under it by being finished or cancelled
      // elsewhere (a /stop) or, when a lease ran out under a stalled holder, claimed by the new one: then it is looked
      // up again, so `resumed` is true of a message another run has taken (and may be saving checkpoints for). Only
      // the last statement writes, so an attempt that failed busy wrote nothing.
      for (;;) {
        const next = await exec.first(nextOpen(db, { sessionKey }));
        if (next === undefined) return undefined;
        const claimed = await exec.first(claim(db, { id: next.id, status: next.status, now: ctx.now() }));
        if (claimed !== undefined) return { ...toInboundRecord(claimed), resumed: next.status === "running" };
      }
    },

    async unanswered(sessionKey) {
      return (await exec.first(countOpen(db, { sessionKey })))?.count ?? 0;
    },

    async cancelQueued(sessionKey) {
      const { changes } = await exec.run(
        db
          .updateTable("inbound")
          .set({ status: "cancelled", updated_at: ctx.now() })
          .where("session_key", "=", sessionKey)
          .where("status", "=", "queued"),
      );
      return changes;
    },

    async unfinished(limit) {
      const rows = await exec.all(
        db
          .selectFrom("inbound")
          .selectAll()
          .where("status", "in", UNFINISHED_INBOUND_STATUSES)
          .orderBy("id")
          .limit(Math.max(0, Math.floor(limit))),
      );
      return rows.map(toInboundRecord);
    },

    async recent(limit) {
      const rows = await exec.all(db.selectFrom("inbound").selectAll().orderBy("id", "desc").limit(Math.max(0, Math.floor(limit))));
      return rows.map(toInboundRecord);
    },
  };
}

// Every answered message runs these (prepared-query.ts).
const byId = preparedQuery((db, p: Param<{ id: number }>) => db.selectFrom("inbound").selectAll().where("id", "=", p("id")));
const byPlatformMessage = preparedQuery((db, p: Param<{ platform: string; messageId: string }>) =>
  db.selectFrom("inbound").selectAll().where("platform", "=", p("platform")).where("message_id", "=", p("messageId")),
);
const insertIfNew = preparedQuery(
  (
    db,
    p: Param<{ platform: string; messageId: string; sessionKey: string | null; status: InboundStatus; payload: string; now: number; traceparent: string | null; tracestate: string | null }>,
  ) =>
    db
      .insertInto("inbound")
      .values({
        platform: p("platform"),
        message_id: p("messageId"),
        session_key: p("sessionKey"),
        status: p("status"),
        payload: p("payload"),
        received_at: p("now"),
        updated_at: p("now"),
        traceparent: p("traceparent"),
        tracestate: p("tracestate"),
      })
      .onConflict((oc) => oc.columns(["platform", "message_id"]).doNothing())
      .returningAll(),
);
const updateStatus = preparedQuery((db, p: Param<{ id: number; status: InboundStatus; now: number }>) =>
  db.updateTable("inbound").set({ status: p("status"), updated_at: p("now") }).where("id", "=", p("id")),
);
// LIMIT 1 written into the SQL: SQLite runs this several times slower with a bound limit.
const nextOpen = preparedQuery((db, p: Param<{ sessionKey: string }>) =>
  db
    .selectFrom("inbound")
    .select(["id", "status"])
    .where("session_key", "=", p("sessionKey"))
    .where("status", "in", OPEN_INBOUND_STATUSES)
    .orderBy("id")
    .limit(sql.lit(1)),
);
const claim = preparedQuery((db, p: Param<{ id: number; status: string; now: number }>) =>
  db.updateTable("inbound").set({ status: "running", updated_at: p("now") }).where("id", "=", p("id")).where("status", "=", p("status")).returningAll(),
);
const countOpen = preparedQuery((db, p: Param<{ sessionKey: string }>) =>
  db
    .selectFrom("inbound")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("session_key", "=", p("sessionKey"))
    .where("status", "in", OPEN_INBOUND_STATUSES),
);

export function toInboundRecord(row: Selectable<InboundTable>): InboundRecord {
  const record: InboundRecord = {
    id: row.id,
    platform: row.platform,
    messageId: row.message_id,
    sessionKey: row.session_key ?? undefined,
    status: row.status as InboundStatus,
    payload: row.payload,
    receivedAt: row.received_at,
    updatedAt: row.updated_at,
  };
  if (row.traceparent !== null) record.traceContext = row.tracestate === null ? { traceparent: row.traceparent } : { traceparent: row.traceparent, tracestate: row.tracestate };
  return record;
}
