import { sql, type Kysely, type Migration } from "kysely";

/** Conversations, their transcripts and full-text index, the inbound log, the outbox and usage. */
export const initialMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("chat_type", "text", (c) => c.notNull())
      .addColumn("thread_id", "text")
      .addColumn("user_id", "text")
      .addColumn("title", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("parent_id", "text", (c) => c.references("sessions.id").onDelete("set null"))
      .addColumn("model", "text")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .execute();
    // The database, not the callers, guarantees that a key never has two active sessions.
    await db.schema
      .createIndex("sessions_one_active_per_key")
      .on("sessions")
      .column("key")
      .unique()
      .where(sql.ref("status"), "=", "active")
      .execute();
    await db.schema.createIndex("sessions_by_user").on("sessions").columns(["platform", "user_id", "created_at"]).execute();
    await db.schema.createIndex("sessions_by_parent").on("sessions").column("parent_id").execute();

    // An explicit INTEGER PRIMARY KEY keeps rowids stable across VACUUM, which the external-content FTS index relies on;
    // (session_id, seq) stays the natural key through the unique constraint.
    await db.schema
      .createTable("messages")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("session_id", "text", (c) => c.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("seq", "integer", (c) => c.notNull())
      .addColumn("role", "text", (c) => c.notNull())
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addUniqueConstraint("messages_session_seq", ["session_id", "seq"])
      .execute();
    await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(
      text, content='messages', content_rowid='id', tokenize='unicode61 remove_diacritics 2'
    )`.execute(db);
    await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
      INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END`.execute(db);
    await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
      INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
      INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
    END`.execute(db);

    await db.schema
      .createTable("inbound")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("message_id", "text", (c) => c.notNull())
      .addColumn("session_key", "text")
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("payload", "text", (c) => c.notNull())
      .addColumn("received_at", "integer", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .addUniqueConstraint("inbound_platform_message", ["platform", "message_id"])
      .execute();
    await db.schema.createIndex("inbound_by_session_status").on("inbound").columns(["session_key", "status", "id"]).execute();

    await db.schema
      .createTable("deliveries")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("inbound_id", "integer", (c) => c.references("inbound.id").onDelete("set null"))
      .addColumn("session_key", "text")
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("thread_id", "text")
      .addColumn("reply_to_message_id", "text")
      .addColumn("text", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("last_error", "text")
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("deliveries_by_status").on("deliveries").columns(["status", "id"]).execute();
    await db.schema.createIndex("deliveries_by_inbound").on("deliveries").column("inbound_id").execute();

    await db.schema
      .createTable("usage")
      .addColumn("session_id", "text", (c) => c.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("input_tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("output_tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("cache_read_tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("cache_write_tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("cost_usd", "real", (c) => c.notNull().defaultTo(0))
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .execute();
  },
};
