import { sql, type Kysely, type Migration } from "kysely";

/**
 * Streaming replies by message edits and approval buttons (#15):
 * - `deliveries.buttons`: the JSON array of buttons shown under the message (DeliveryButton), null for none.
 * - `stream_parts`: the platform messages a streamed reply already occupies, by 0-based part, so the final reply
 *   edits them instead of sending a duplicate, also after a restart. They go with their inbound.
 * - `approvals`: a run's request to use a dangerous tool and its decision. `inbound_id` is not a foreign key: a grant
 *   for the conversation ("approved", scope "session") outlives the inbound log's retention of the run that asked.
 */
export const streamingApprovalsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("deliveries").addColumn("buttons", "text").execute();

    await db.schema
      .createTable("stream_parts")
      .addColumn("inbound_id", "integer", (c) => c.notNull().references("inbound.id").onDelete("cascade"))
      .addColumn("part", "integer", (c) => c.notNull())
      .addColumn("message_id", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("stream_parts_pk", ["inbound_id", "part"])
      .execute();
    await db.schema.createIndex("stream_parts_by_time").on("stream_parts").column("created_at").execute();

    await db.schema
      .createTable("approvals")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("inbound_id", "integer", (c) => c.notNull())
      .addColumn("session_key", "text", (c) => c.notNull())
      .addColumn("session_id", "text", (c) => c.notNull())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("thread_id", "text")
      .addColumn("requester_id", "text", (c) => c.notNull())
      .addColumn("tool", "text", (c) => c.notNull())
      .addColumn("summary", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("scope", "text")
      .addColumn("decided_by", "text")
      .addColumn("decided_at", "integer")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("expires_at", "integer", (c) => c.notNull())
      .execute();
    await createApprovalIndexes(db);
  },
};

/** Shared with PostgreSQL's 0012: the two look-ups of approvals.ts (a session's latest pending one, its grants). */
export async function createApprovalIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("approvals_pending_by_session_key").on("approvals").columns(["session_key", "created_at"]).where(sql.ref("status"), "=", "pending").execute();
  await db.schema.createIndex("approvals_by_session_tool").on("approvals").columns(["session_id", "tool"]).execute();
}
