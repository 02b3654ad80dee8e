import { sql, type Kysely, type Migration } from "kysely";
import { createApprovalIndexes } from "../../migrations/0012-streaming-approvals.js";

/** PostgreSQL's side of SQLite's 0012_streaming_approvals (../../migrations/0012-streaming-approvals.ts explains it). */
const TEXT = sql`text collate "C"`;

export const streamingApprovalsPostgresMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("deliveries").addColumn("buttons", TEXT).execute();

    await db.schema
      .createTable("stream_parts")
      .addColumn("inbound_id", "bigint", (c) => c.notNull().references("inbound.id").onDelete("cascade"))
      .addColumn("part", "integer", (c) => c.notNull())
      .addColumn("message_id", TEXT, (c) => c.notNull())
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addPrimaryKeyConstraint("stream_parts_pk", ["inbound_id", "part"])
      .execute();
    await db.schema.createIndex("stream_parts_by_time").on("stream_parts").column("created_at").execute();

    await db.schema
      .createTable("approvals")
      .addColumn("id", TEXT, (c) => c.primaryKey())
      .addColumn("inbound_id", "bigint", (c) => c.notNull())
      .addColumn("session_key", TEXT, (c) => c.notNull())
      .addColumn("session_id", TEXT, (c) => c.notNull())
      .addColumn("platform", TEXT, (c) => c.notNull())
      .addColumn("chat_id", TEXT, (c) => c.notNull())
      .addColumn("thread_id", TEXT)
      .addColumn("requester_id", TEXT, (c) => c.notNull())
      .addColumn("tool", TEXT, (c) => c.notNull())
      .addColumn("summary", TEXT, (c) => c.notNull())
      .addColumn("status", TEXT, (c) => c.notNull())
      .addColumn("scope", TEXT)
      .addColumn("decided_by", TEXT)
      .addColumn("decided_at", "bigint")
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .addColumn("expires_at", "bigint", (c) => c.notNull())
      .execute();
    await createApprovalIndexes(db);
  },
};
