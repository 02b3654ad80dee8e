import type { Selectable } from "kysely";
import type { DeliveriesTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import type { DeliveryRecord, DeliveryStatus, NewDelivery } from "./types.js";

/** The outbox: replies are written here in the same transaction that finishes a run, then sent by the gateway. */
export interface DeliveryRepository {
  enqueue(delivery: NewDelivery): Promise<DeliveryRecord>;
  /** Oldest first. */
  pending(limit?: number): Promise<DeliveryRecord[]>;
  /** How many deliveries are still pending, counted by the database (for /healthz and metrics). */
  countPending(): Promise<number>;
  markSent(id: number): Promise<void>;
  /** Counts the attempt; a final failure stops further attempts, otherwise the delivery stays pending. */
  recordFailure(id: number, error: string, final: boolean): Promise<void>;
}

const DEFAULT_PENDING_LIMIT = 100;

export function createDeliveryRepository(ctx: StoreContext): DeliveryRepository {
  const { db, exec } = ctx;
  return {
    async enqueue(delivery) {
      return insertDelivery(ctx, delivery);
    },

    async pending(limit = DEFAULT_PENDING_LIMIT) {
      const rows = exec.all(
        db
          .selectFrom("deliveries")
          .selectAll()
          .where("status", "=", "pending")
          .orderBy("id")
          .limit(Math.max(0, Math.floor(limit))),
      );
      return rows.map(toDeliveryRecord);
    },

    async countPending() {
      const row = exec.first(
        db
          .selectFrom("deliveries")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("status", "=", "pending"),
      );
      return Number(row?.count ?? 0);
    },

    async markSent(id) {
      exec.run(db.updateTable("deliveries").set({ status: "sent", updated_at: ctx.now() }).where("id", "=", id));
    },

    async recordFailure(id, error, final) {
      exec.run(
        db
          .updateTable("deliveries")
          .set((eb) => ({
            attempts: eb("attempts", "+", 1),
            last_error: error,
            status: final ? "failed" : "pending",
            updated_at: ctx.now(),
          }))
          .where("id", "=", id),
      );
    },
  };
}

export function insertDelivery(ctx: StoreContext, delivery: NewDelivery): DeliveryRecord {
  const now = ctx.now();
  const row = ctx.exec.first(
    ctx.db
      .insertInto("deliveries")
      .values({
        inbound_id: delivery.inboundId ?? null,
        session_key: delivery.sessionKey ?? null,
        platform: delivery.platform,
        chat_id: delivery.chatId,
        thread_id: delivery.threadId ?? null,
        reply_to_message_id: delivery.replyToMessageId ?? null,
        text: delivery.text,
        kind: delivery.kind,
        status: "pending",
        attempts: 0,
        created_at: now,
        updated_at: now,
      })
      .returningAll(),
  );
  if (row === undefined) throw new Error("delivery insert returned no row");
  return toDeliveryRecord(row);
}

function toDeliveryRecord(row: Selectable<DeliveriesTable>): DeliveryRecord {
  return {
    id: row.id,
    inboundId: row.inbound_id ?? undefined,
    sessionKey: row.session_key ?? undefined,
    platform: row.platform,
    chatId: row.chat_id,
    threadId: row.thread_id ?? undefined,
    replyToMessageId: row.reply_to_message_id ?? undefined,
    text: row.text,
    kind: row.kind as DeliveryRecord["kind"],
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastError: row.last_error ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
