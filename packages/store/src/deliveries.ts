import { sql, type Selectable } from "kysely";
import type { DeliveriesTable } from "./database.js";
import { decodeButtons, encodeButtons } from "./delivery-buttons.js";
import {
  NO_CLAIM,
  anyClaimable,
  byId,
  claimDue,
  deferHeld,
  failedHeld,
  insert,
  insertReturning,
  nextDue,
  partSentHeld,
  renewHeld,
  sentHeld,
  type DeliveryValues,
} from "./delivery-statements.js";
import type { StoreContext } from "./store-context.js";
import type { DeliveryOutcome, DeliveryRecord, DeliveryStatus, NewDelivery } from "./types.js";

export interface DeliveryClaimRequest {
  /** Who sends (one token per delivery service instance). */
  owner: string;
  /** Only rows of these platforms: a process never takes replies for a platform it does not run. */
  platforms: readonly string[];
  limit: number;
  /** How long the claim holds without `renewClaim`; after that another process may take the row over. */
  leaseMs: number;
}

export interface DeliveryFailure {
  /** Give up (status "failed"); otherwise the row stays pending and counts one more attempt. */
  final: boolean;
  /** Not retried before this time (ms); unset: due at once. */
  retryAt?: number;
}

/**
 * The outbox: replies are written here in the same transaction that finishes a run, then sent by the gateway. A
 * sender claims a row before sending it; every write of a sender checks that it still holds the claim and returns
 * false (changing nothing) when it does not — another process took the row over after the lease ran out, or it is
 * no longer pending.
 */
export interface DeliveryRepository {
  enqueue(delivery: NewDelivery): Promise<DeliveryRecord>;
  get(id: number): Promise<DeliveryRecord | undefined>;
  /** Oldest first, claimed or not. */
  pending(limit?: number): Promise<DeliveryRecord[]>;
  /** How many deliveries are still pending, counted by the database (for /healthz and metrics). */
  countPending(): Promise<number>;
  /** Pending deliveries per platform. */
  countPendingByPlatform(): Promise<Record<string, number>>;
  /**
   * Atomically claims due rows (no `nextAttemptAt` in the future) of `platforms` that nobody holds (or whose lease
   * ran out) — only the oldest pending row of each chat, so a chat's replies go out in order whoever sends them.
   * Oldest first.
   */
  claim(request: DeliveryClaimRequest): Promise<DeliveryRecord[]>;
  /** Extends the lease of a row the owner holds. */
  renewClaim(id: number, owner: string, leaseMs: number): Promise<boolean>;
  /** Records that the first `partsSent` parts are out; a later sender resumes after them. */
  markPartSent(id: number, owner: string, partsSent: number): Promise<boolean>;
  /** Sent; the claim ends. */
  markSent(id: number, owner: string): Promise<boolean>;
  /** Counts a failed attempt; the claim ends. */
  recordFailure(id: number, owner: string, error: string, failure: DeliveryFailure): Promise<boolean>;
  /** Not before `until` (a platform's retry_after): not a failed attempt; the claim ends. */
  defer(id: number, owner: string, until: number): Promise<boolean>;
  /** Ends every claim the owner holds (on shutdown), so another process need not wait for the leases; the count. */
  releaseClaims(owner: string): Promise<number>;
  /**
   * Ends every claim on `platforms` held by anyone but `owner`: for the one process that alone sends those platforms
   * (the active gateway) as it takes over, so a reply its crashed predecessor held is not stuck for the lease. The count.
   */
  releaseClaimsOfOthers(owner: string, platforms: readonly string[]): Promise<number>;
  /** The earliest future `nextAttemptAt` of a pending row of `platforms`, for a wake-up timer. */
  nextAttemptAt(platforms: readonly string[]): Promise<number | undefined>;
  /**
   * How the last `limit` replies (kind "reply") of `sessionKey` that are no longer pending ended, newest first: a
   * scheduled task whose replies all fail for good has lost its chat.
   */
  lastFinalOutcomes(sessionKey: string, limit: number): Promise<DeliveryOutcome[]>;
}

const DEFAULT_PENDING_LIMIT = 100;

export function createDeliveryRepository(ctx: StoreContext): DeliveryRepository {
  const { db, exec } = ctx;
  /** An update of a row `owner` holds and that is still pending; true when it changed the row. */
  const changed = (result: { changes: number }): boolean => result.changes > 0;

  return {
    async enqueue(delivery) {
      return insertDelivery(ctx, delivery);
    },

    async get(id) {
      const row = await exec.first(byId(db, { id }));
      return row === undefined ? undefined : toDeliveryRecord(row);
    },

    async pending(limit = DEFAULT_PENDING_LIMIT) {
      const rows = await exec.all(
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
      const row = await exec.first(
        db
          .selectFrom("deliveries")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("status", "=", "pending"),
      );
      return Number(row?.count ?? 0);
    },

    async countPendingByPlatform() {
      const rows = await exec.all(
        db
          .selectFrom("deliveries")
          .select(["platform", (eb) => eb.fn.countAll<number>().as("count")])
          .where("status", "=", "pending")
          .groupBy("platform"),
      );
      return Object.fromEntries(rows.map((row) => [row.platform, Number(row.count)]));
    },

    async claim({ owner, platforms, limit, leaseMs }) {
      const take = Math.floor(limit);
      if (platforms.length === 0 || !(take > 0)) return [];
      if (!Number.isSafeInteger(take)) throw new Error(`claim limit out of range: ${limit}`);
      const now = ctx.now();
      // Most claims find nothing (after each reply, on every poll): a plain read says so without taking the write
      // lock the other processes wait for. The claim itself is one UPDATE, atomic on its own (its subquery reads under
      // the same write lock; on PostgreSQL it locks the rows it takes and skips rows another claim is taking), so a row
      // taken in between is simply not claimed, and no transaction is needed.
      if ((await exec.first(anyClaimable(db, { now }, platforms))) === undefined) return [];
      const rows = await exec.all(claimDue(take)(db, { owner, now, expiresAt: now + Math.max(0, leaseMs) }, platforms));
      return rows.map(toDeliveryRecord).sort((a, b) => a.id - b.id);
    },

    async renewClaim(id, owner, leaseMs) {
      return changed(await exec.run(renewHeld(db, { id, owner, expiresAt: ctx.now() + Math.max(0, leaseMs) })));
    },

    async markPartSent(id, owner, partsSent) {
      return changed(await exec.run(partSentHeld(db, { id, owner, partsSent: Math.max(0, Math.floor(partsSent)), now: ctx.now() })));
    },

    async markSent(id, owner) {
      return changed(await exec.run(sentHeld(db, { id, owner, now: ctx.now() })));
    },

    async recordFailure(id, owner, error, failure) {
      return changed(
        await exec.run(
          failedHeld(db, {
            id,
            owner,
            error,
            status: failure.final ? "failed" : "pending",
            nextAttemptAt: failure.final ? null : (failure.retryAt ?? null),
            now: ctx.now(),
          }),
        ),
      );
    },

    async defer(id, owner, until) {
      return changed(await exec.run(deferHeld(db, { id, owner, until, now: ctx.now() })));
    },

    async releaseClaims(owner) {
      return (await exec.run(db.updateTable("deliveries").set(NO_CLAIM).where("claim_owner", "=", owner).where("status", "=", "pending"))).changes;
    },

    async releaseClaimsOfOthers(owner, platforms) {
      if (platforms.length === 0) return 0;
      const released = await exec.run(
        db
          .updateTable("deliveries")
          .set(NO_CLAIM)
          .where("claim_owner", "is not", null)
          .where("claim_owner", "!=", owner)
          .where("status", "=", "pending")
          .where("platform", "in", [...platforms]),
      );
      return released.changes;
    },

    async nextAttemptAt(platforms) {
      if (platforms.length === 0) return undefined;
      return (await exec.first(nextDue(db, { now: ctx.now() }, platforms)))?.at ?? undefined;
    },

    async lastFinalOutcomes(sessionKey, limit) {
      const take = Math.floor(limit);
      if (!Number.isSafeInteger(take) || take < 1) throw new RangeError(`outcome limit must be a positive integer, got ${String(limit)}`);
      const rows = await exec.all(
        db
          .selectFrom("deliveries")
          .select(["status", "last_error"])
          .where("session_key", "=", sessionKey)
          .where("kind", "=", "reply")
          .where("status", "in", ["sent", "failed"])
          .orderBy("id", "desc")
          // Written into the SQL: SQLite runs ORDER BY … LIMIT several times slower with a bound limit.
          .limit(sql.lit(take)),
      );
      return rows.map((row) => ({ status: row.status as DeliveryOutcome["status"], ...(row.last_error === null ? {} : { lastError: row.last_error }) }));
    },
  };
}

/** Enqueues a delivery and returns it as stored. */
export async function insertDelivery(ctx: StoreContext, delivery: NewDelivery): Promise<DeliveryRecord> {
  const row = await ctx.exec.first(insertReturning(ctx.db, insertValues(ctx, delivery)));
  if (row === undefined) throw new Error("delivery insert returned no row");
  return toDeliveryRecord(row);
}

/** Enqueues a delivery whose stored form nobody needs (a finished run's reply). */
export async function addDelivery(ctx: StoreContext, delivery: NewDelivery): Promise<void> {
  await ctx.exec.run(insert(ctx.db, insertValues(ctx, delivery)));
}

function insertValues(ctx: StoreContext, delivery: NewDelivery): DeliveryValues {
  return {
    inboundId: delivery.inboundId ?? null,
    sessionKey: delivery.sessionKey ?? null,
    platform: delivery.platform,
    chatId: delivery.chatId,
    threadId: delivery.threadId ?? null,
    replyToMessageId: delivery.replyToMessageId ?? null,
    text: delivery.text,
    kind: delivery.kind,
    buttons: encodeButtons(delivery.buttons),
    now: ctx.now(),
  };
}

function toDeliveryRecord(row: Selectable<DeliveriesTable>): DeliveryRecord {
  const buttons = decodeButtons(row.buttons);
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
    ...(buttons === undefined ? {} : { buttons }),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    lastError: row.last_error ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    partsSent: row.parts_sent,
    nextAttemptAt: row.next_attempt_at ?? undefined,
    claimOwner: row.claim_owner ?? undefined,
    claimExpiresAt: row.claim_expires_at ?? undefined,
  };
}
