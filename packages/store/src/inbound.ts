import type { Selectable } from "kysely";
import type { InboundTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import { clearToolCheckpoints } from "./tool-checkpoints.js";
import type { InboundRecord, InboundStatus, InboundTraceContext } from "./types.js";

export interface NewInbound {
  platform: string;
  messageId: string;
  payload: string;
  sessionKey?: string;
  status: InboundStatus;
  /** Saved with the message in the same write, so it is there for whoever runs or answers it. */
  traceContext?: Partial<InboundTraceContext>;
}

export interface InboundRepository {
  /** Deduplicates on (platform, messageId): a redelivered platform event returns the first record, unchanged. */
  recordIfNew(input: NewInbound): Promise<{ created: boolean; record: InboundRecord }>;
  get(id: number): Promise<InboundRecord | undefined>;
  setStatus(id: number, status: InboundStatus): Promise<void>;
  /**
   * The oldest 'running' or 'queued' inbound of the key, now 'running'. The caller holds the session lock, so a
   * 'running' one can only be left over from a crashed run and is taken up again.
   */
  claimNext(sessionKey: string): Promise<InboundRecord | undefined>;
  /** Queued plus running. */
  unanswered(sessionKey: string): Promise<number>;
  /** Queued → cancelled; returns how many. */
  cancelQueued(sessionKey: string): Promise<number>;
  /** Newest first. */
  recent(limit: number): Promise<InboundRecord[]>;
  /** Messages not finished yet (received, queued or running), oldest first: what a restart must pick up. */
  unfinished(limit: number): Promise<InboundRecord[]>;
}

const OPEN_STATUSES: InboundStatus[] = ["running", "queued"];
const UNFINISHED_STATUSES: InboundStatus[] = ["received", ...OPEN_STATUSES];

export function createInboundRepository(ctx: StoreContext): InboundRepository {
  const { db, exec } = ctx;

  const selectById = (id: number): InboundRecord | undefined => {
    const row = exec.first(db.selectFrom("inbound").selectAll().where("id", "=", id));
    return row && toInboundRecord(row);
  };

  return {
    async recordIfNew(input) {
      return exec.write(() => {
        const now = ctx.now();
        const inserted = exec.first(
          db
            .insertInto("inbound")
            .values({
              platform: input.platform,
              message_id: input.messageId,
              session_key: input.sessionKey ?? null,
              status: input.status,
              payload: input.payload,
              received_at: now,
              updated_at: now,
              traceparent: input.traceContext?.traceparent ?? null,
              tracestate: input.traceContext?.tracestate ?? null,
            })
            .onConflict((oc) => oc.columns(["platform", "message_id"]).doNothing())
            .returningAll(),
        );
        if (inserted) return { created: true, record: toInboundRecord(inserted) };
        const existing = exec.first(
          db.selectFrom("inbound").selectAll().where("platform", "=", input.platform).where("message_id", "=", input.messageId),
        );
        if (existing === undefined) throw new Error("inbound conflict without an existing row");
        return { created: false, record: toInboundRecord(existing) };
      });
    },

    async get(id) {
      return selectById(id);
    },

    async setStatus(id, status) {
      exec.write(() => {
        exec.run(db.updateTable("inbound").set({ status, updated_at: ctx.now() }).where("id", "=", id));
        // A message given up on outside completeRun (a queue failure, a failed run not recorded) is not re-run either.
        if (!UNFINISHED_STATUSES.includes(status)) clearToolCheckpoints(ctx, id);
      });
    },

    async claimNext(sessionKey) {
      return exec.write(() => {
        const next = exec.first(
          db
            .selectFrom("inbound")
            .select("id")
            .where("session_key", "=", sessionKey)
            .where("status", "in", OPEN_STATUSES)
            .orderBy("id")
            .limit(1),
        );
        if (next === undefined) return undefined;
        exec.run(db.updateTable("inbound").set({ status: "running", updated_at: ctx.now() }).where("id", "=", next.id));
        return selectById(next.id);
      });
    },

    async unanswered(sessionKey) {
      const row = exec.first(
        db
          .selectFrom("inbound")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("session_key", "=", sessionKey)
          .where("status", "in", OPEN_STATUSES),
      );
      return row?.count ?? 0;
    },

    async cancelQueued(sessionKey) {
      const { changes } = exec.run(
        db
          .updateTable("inbound")
          .set({ status: "cancelled", updated_at: ctx.now() })
          .where("session_key", "=", sessionKey)
          .where("status", "=", "queued"),
      );
      return changes;
    },

    async unfinished(limit) {
      const rows = exec.all(
        db
          .selectFrom("inbound")
          .selectAll()
          .where("status", "in", ["received", ...OPEN_STATUSES])
          .orderBy("id")
          .limit(Math.max(0, Math.floor(limit))),
      );
      return rows.map(toInboundRecord);
    },

    async recent(limit) {
      const rows = exec.all(db.selectFrom("inbound").selectAll().orderBy("id", "desc").limit(Math.max(0, Math.floor(limit))));
      return rows.map(toInboundRecord);
    },
  };
}

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
