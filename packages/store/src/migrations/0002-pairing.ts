import type { Kysely, Migration } from "kysely";

/** Access control (DM pairing with rate limiting, approved users) and per-chat settings. */
export const pairingMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("pairing_requests")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("user_name", "text")
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("code_hash", "text", (c) => c.notNull())
      .addColumn("salt", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addColumn("expires_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("pairing_requests_by_user").on("pairing_requests").columns(["platform", "user_id"]).execute();
    await db.schema.createIndex("pairing_requests_by_expiry").on("pairing_requests").columns(["platform", "expires_at"]).execute();

    await db.schema
      .createTable("approved_users")
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      .addColumn("user_name", "text")
      .addColumn("approved_at", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("approved_users_pk", ["platform", "user_id"])
      .execute();

    await db.schema
      .createTable("pairing_failures")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("pairing_failures_by_time").on("pairing_failures").columns(["platform", "at"]).execute();

    await db.schema
      .createTable("chat_settings")
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("mention_mode", "text", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("chat_settings_pk", ["platform", "chat_id"])
      .execute();
  },
};
