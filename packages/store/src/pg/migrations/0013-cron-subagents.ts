import { sql, type Kysely, type Migration } from "kysely";
import { createCronSubagentIndexes } from "../../migrations/0013-cron-subagents.js";

/** PostgreSQL's side of SQLite's 0013_cron_subagents (../../migrations/0013-cron-subagents.ts explains it). */
const TEXT = sql`text collate "C"`;

export const cronSubagentsPostgresMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("cron_jobs")
      .addColumn("id", TEXT, (c) => c.primaryKey())
      .addColumn("platform", TEXT, (c) => c.notNull())
      .addColumn("chat_id", TEXT, (c) => c.notNull())
      .addColumn("chat_type", TEXT, (c) => c.notNull())
      .addColumn("thread_id", TEXT)
      .addColumn("creator_id", TEXT, (c) => c.notNull())
      .addColumn("session_key", TEXT, (c) => c.notNull())
      .addColumn("schedule", TEXT, (c) => c.notNull())
      .addColumn("kind", TEXT, (c) => c.notNull())
      .addColumn("prompt", TEXT, (c) => c.notNull())
      .addColumn("next_run_at", "bigint")
      .addColumn("last_run_at", "bigint")
      .addColumn("last_status", TEXT)
      .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "bigint", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("subagent_runs")
      .addColumn("id", TEXT, (c) => c.primaryKey())
      .addColumn("parent_session_id", TEXT, (c) => c.notNull())
      .addColumn("parent_tool_call_id", TEXT, (c) => c.notNull())
      .addColumn("goal", TEXT, (c) => c.notNull())
      .addColumn("status", TEXT, (c) => c.notNull())
      .addColumn("summary", TEXT, (c) => c.notNull())
      .addColumn("steps", "integer", (c) => c.notNull())
      .addColumn("input_tokens", "bigint", (c) => c.notNull())
      .addColumn("output_tokens", "bigint", (c) => c.notNull())
      .addColumn("cost_usd", "double precision", (c) => c.notNull())
      .addColumn("started_at", "bigint", (c) => c.notNull())
      .addColumn("ended_at", "bigint", (c) => c.notNull())
      .execute();
    await createCronSubagentIndexes(db);
  },
};
