import type { Kysely, Migration } from "kysely";

/**
 * Cost and tokens per user per UTC day, for HERMES_DAILY_BUDGET_USD. Kept apart from the per-session `usage` table
 * because a budget is a person's, across all their conversations, and resets each day; a row is written in the same
 * transaction as the run's session usage, so the two never disagree.
 */
export const userDailyUsageMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("user_daily_usage")
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      /** The UTC calendar day, YYYY-MM-DD. */
      .addColumn("day", "text", (c) => c.notNull())
      .addColumn("cost_usd", "real", (c) => c.notNull().defaultTo(0))
      .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("tokens", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .addPrimaryKeyConstraint("user_daily_usage_pk", ["platform", "user_id", "day"])
      .execute();
  },
};
