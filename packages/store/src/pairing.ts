import type { Selectable } from "kysely";
import type { ApprovedUsersTable, PairingRequestsTable } from "./database.js";
import { preparedQuery, type Param } from "./prepared-query.js";
import type { StoreContext } from "./store-context.js";
import type { ApprovedUserRecord, PairingRequestRecord } from "./types.js";

export type NewPairingRequest = Omit<PairingRequestRecord, "id">;

export interface ApprovedUserInput {
  platform: string;
  userId: string;
  userName?: string;
}

/** DM pairing: hashed one-time codes, the users an operator approved, and failed attempts for rate limiting. */
export interface PairingRepository {
  createRequest(request: NewPairingRequest): Promise<PairingRequestRecord>;
  /** Requests not yet expired at `now`, oldest first. */
  pendingRequests(platform: string, now: number): Promise<PairingRequestRecord[]>;
  /** The user's newest request, expired or not. */
  latestRequestForUser(platform: string, userId: string): Promise<PairingRequestRecord | undefined>;
  /** False when the request was gone already (another process approved or replaced it). */
  deleteRequest(id: number): Promise<boolean>;
  /** Deletes the requests expired at `now`; returns how many. */
  purgeExpired(now: number): Promise<number>;
  /** Approving again refreshes the name and the approval time. */
  approve(user: ApprovedUserInput, now: number): Promise<void>;
  isApproved(platform: string, userId: string): Promise<boolean>;
  /** False when the user was not approved. */
  revoke(platform: string, userId: string): Promise<boolean>;
  /** In order of approval. */
  listApproved(platform?: string): Promise<ApprovedUserRecord[]>;
  recordFailure(platform: string, now: number): Promise<void>;
  failuresSince(platform: string, since: number): Promise<number>;
  clearFailures(platform: string): Promise<void>;
}

export function createPairingRepository(ctx: StoreContext): PairingRepository {
  const { db, exec } = ctx;
  return {
    async createRequest(request) {
      const row = await exec.first(
        db
          .insertInto("pairing_requests")
          .values({
            platform: request.platform,
            user_id: request.userId,
            user_name: request.userName ?? null,
            chat_id: request.chatId,
            code_hash: request.codeHash,
            salt: request.salt,
            created_at: request.createdAt,
            expires_at: request.expiresAt,
          })
          .returningAll(),
      );
      if (row === undefined) throw new Error("pairing request insert returned no row");
      return toPairingRequestRecord(row);
    },

    async pendingRequests(platform, now) {
      const rows = await exec.all(
        db
          .selectFrom("pairing_requests")
          .selectAll()
          .where("platform", "=", platform)
          .where("expires_at", ">", now)
          .orderBy("created_at")
          .orderBy("id"),
      );
      return rows.map(toPairingRequestRecord);
    },

    async latestRequestForUser(platform, userId) {
      const row = await exec.first(
        db
          .selectFrom("pairing_requests")
          .selectAll()
          .where("platform", "=", platform)
          .where("user_id", "=", userId)
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .limit(1),
      );
      return row && toPairingRequestRecord(row);
    },

    async deleteRequest(id) {
      return (await exec.run(db.deleteFrom("pairing_requests").where("id", "=", id))).changes > 0;
    },

    async purgeExpired(now) {
      return (await exec.run(db.deleteFrom("pairing_requests").where("expires_at", "<=", now))).changes;
    },

    async approve(user, now) {
      await exec.run(
        db
          .insertInto("approved_users")
          .values({ platform: user.platform, user_id: user.userId, user_name: user.userName ?? null, approved_at: now })
          .onConflict((oc) =>
            oc.columns(["platform", "user_id"]).doUpdateSet((eb) => ({
              user_name: eb.fn.coalesce(eb.ref("excluded.user_name"), eb.ref("approved_users.user_name")),
              approved_at: eb.ref("excluded.approved_at"),
            })),
          ),
      );
    },

    async isApproved(platform, userId) {
      return (await exec.first(approvedUser(db, { platform, userId }))) !== undefined;
    },

    async revoke(platform, userId) {
      const { changes } = await exec.run(
        db.deleteFrom("approved_users").where("platform", "=", platform).where("user_id", "=", userId),
      );
      return changes > 0;
    },

    async listApproved(platform) {
      let query = db.selectFrom("approved_users").selectAll();
      if (platform !== undefined) query = query.where("platform", "=", platform);
      const rows = await exec.all(query.orderBy("approved_at").orderBy("platform").orderBy("user_id"));
      return rows.map(toApprovedUserRecord);
    },

    async recordFailure(platform, now) {
      await exec.run(db.insertInto("pairing_failures").values({ platform, at: now }));
    },

    async failuresSince(platform, since) {
      const row = await exec.first(
        db
          .selectFrom("pairing_failures")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .where("platform", "=", platform)
          .where("at", ">=", since),
      );
      return row?.count ?? 0;
    },

    async clearFailures(platform) {
      await exec.run(db.deleteFrom("pairing_failures").where("platform", "=", platform));
    },
  };
}

function toPairingRequestRecord(row: Selectable<PairingRequestsTable>): PairingRequestRecord {
  return {
    id: row.id,
    platform: row.platform,
    userId: row.user_id,
    userName: row.user_name ?? undefined,
    chatId: row.chat_id,
    codeHash: row.code_hash,
    salt: row.salt,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

function toApprovedUserRecord(row: Selectable<ApprovedUsersTable>): ApprovedUserRecord {
  return {
    platform: row.platform,
    userId: row.user_id,
    userName: row.user_name ?? undefined,
    approvedAt: row.approved_at,
  };
}

// Checked for every message of a user the allowlist does not name (prepared-query.ts).
const approvedUser = preparedQuery((db, p: Param<{ platform: string; userId: string }>) =>
  db.selectFrom("approved_users").select("user_id").where("platform", "=", p("platform")).where("user_id", "=", p("userId")),
);
