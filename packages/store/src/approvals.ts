import { sql, type Selectable } from "kysely";
import type { ApprovalsTable } from "./database.js";
import type { StoreContext } from "./store-context.js";
import type { ApprovalDecision, ApprovalRecord, ApprovalScope, ApprovalStatus, NewApproval } from "./types.js";

/** Requests of runs to use a dangerous tool, decided by the person whose message started the run. */
export interface ApprovalRepository {
  create(approval: NewApproval): Promise<void>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  /**
   * Compare-and-set: decides only an approval still pending, so of two presses at once exactly one wins (true). An
   * approval past its `expiresAt` at `decidedAt` can only be decided "expired": a late press approves nothing.
   */
  decide(id: string, decision: ApprovalDecision): Promise<boolean>;
  /** The session key's newest approval that is pending and not expired at `now`. */
  latestPending(sessionKey: string, now: number): Promise<ApprovalRecord | undefined>;
  /**
   * Whether this person approved the tool for the whole conversation (status approved, scope session) of this session
   * id. Theirs only: in a thread several people share, one person's grant must not let another's calls run unasked.
   */
  grantedForSession(sessionId: string, tool: string, requesterId: string): Promise<boolean>;
}

const APPROVAL_ID = /^[a-z0-9]{8,12}$/;

export function createApprovalRepository(ctx: StoreContext): ApprovalRepository {
  const { db, exec } = ctx;
  return {
    async create(approval) {
      // The run makes the id; one a person could not type back, or too long for a button's value, is a bug there.
      if (!APPROVAL_ID.test(approval.id)) throw new RangeError(`approval id must be 8 to 12 characters of [a-z0-9], got ${JSON.stringify(approval.id)}`);
      await exec.run(
        db.insertInto("approvals").values({
          id: approval.id,
          inbound_id: approval.inboundId,
          session_key: approval.sessionKey,
          session_id: approval.sessionId,
          platform: approval.platform,
          chat_id: approval.chatId,
          thread_id: approval.threadId ?? null,
          requester_id: approval.requesterId,
          tool: approval.tool,
          summary: approval.summary,
          status: "pending",
          scope: null,
          decided_by: null,
          decided_at: null,
          created_at: approval.createdAt,
          expires_at: approval.expiresAt,
        }),
      );
    },

    async get(id) {
      const row = await exec.first(db.selectFrom("approvals").selectAll().where("id", "=", id));
      return row && toApprovalRecord(row);
    },

    async decide(id, decision) {
      let update = db
        .updateTable("approvals")
        .set({ status: decision.status, scope: decision.scope ?? null, decided_by: decision.decidedBy ?? null, decided_at: decision.decidedAt })
        .where("id", "=", id)
        .where("status", "=", "pending");
      if (decision.status !== "expired") update = update.where("expires_at", ">", decision.decidedAt);
      return (await exec.run(update)).changes > 0;
    },

    async latestPending(sessionKey, now) {
      const row = await exec.first(
        db
          .selectFrom("approvals")
          .selectAll()
          .where("session_key", "=", sessionKey)
          // A literal, so SQLite can use the partial index approvals_pending_by_session_key.
          .where("status", "=", sql.lit("pending"))
          .where("expires_at", ">", now)
          .orderBy("created_at", "desc")
          .orderBy("id", "desc")
          .limit(sql.lit(1)),
      );
      return row && toApprovalRecord(row);
    },

    async grantedForSession(sessionId, tool, requesterId) {
      const row = await exec.first(
        db
          .selectFrom("approvals")
          .select("id")
          .where("session_id", "=", sessionId)
          .where("tool", "=", tool)
          .where("requester_id", "=", requesterId)
          .where("status", "=", "approved")
          .where("scope", "=", "session")
          .limit(sql.lit(1)),
      );
      return row !== undefined;
    },
  };
}

function toApprovalRecord(row: Selectable<ApprovalsTable>): ApprovalRecord {
  return {
    id: row.id,
    inboundId: row.inbound_id,
    sessionKey: row.session_key,
    sessionId: row.session_id,
    platform: row.platform,
    chatId: row.chat_id,
    ...(row.thread_id === null ? {} : { threadId: row.thread_id }),
    requesterId: row.requester_id,
    tool: row.tool,
    summary: row.summary,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.status as ApprovalStatus,
    ...(row.scope === null ? {} : { scope: row.scope as ApprovalScope }),
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
  };
}
