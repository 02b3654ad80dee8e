import type { Kysely, Migration } from "kysely";

/**
 * Delivery claims: a process takes a row (owner, lease) before sending it, so two processes never send the same
 * reply; `parts_sent` keeps how far a multi-part reply got, so a restart resumes at the first unsent part;
 * `next_attempt_at` defers a row (a platform's retry_after, a retry's backoff) without holding a sender.
 */
export const deliveryClaimsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("deliveries").addColumn("claim_owner", "text").execute();
    await db.schema.alterTable("deliveries").addColumn("claim_expires_at", "integer").execute();
    await db.schema.alterTable("deliveries").addColumn("parts_sent", "integer", (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.alterTable("deliveries").addColumn("next_attempt_at", "integer").execute();
    // The claim looks up the oldest pending row of each chat of the given platforms: a covering scan of this index.
    await db.schema.createIndex("deliveries_chat_heads").on("deliveries").columns(["status", "platform", "chat_id", "id"]).execute();
  },
};
