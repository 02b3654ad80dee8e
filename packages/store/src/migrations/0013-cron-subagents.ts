import type { Kysely, Migration } from "kysely";

/**
 * Scheduled tasks and sub-agents (#16):
 * - `cron_jobs`: a chat's scheduled prompts. `next_run_at` is the slot a scheduler claims next (compare-and-set, so
 *   two gateways never start one slot twice); null once a one-shot is done or missed. Configuration: never pruned.
 * - `subagent_runs`: the lineage of delegation, one row per sub-agent a run's `delegate_task` started. Not a foreign
 *   key to sessions: the lineage goes by its own retention window, not with the conversation.
 */
export const cronSubagentsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("cron_jobs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("platform", "text", (c) => c.notNull())
      .addColumn("chat_id", "text", (c) => c.notNull())
      .addColumn("chat_type", "text", (c) => c.notNull())
      .addColumn("thread_id", "text")
      .addColumn("creator_id", "text", (c) => c.notNull())
      .addColumn("session_key", "text", (c) => c.notNull())
      .addColumn("schedule", "text", (c) => c.notNull())
      .addColumn("kind", "text", (c) => c.notNull())
      .addColumn("prompt", "text", (c) => c.notNull())
      .addColumn("next_run_at", "integer")
      .addColumn("last_run_at", "integer")
      .addColumn("last_status", "text")
      .addColumn("runs", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();

    await db.schema
      .createTable("subagent_runs")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("parent_session_id", "text", (c) => c.notNull())
      .addColumn("parent_tool_call_id", "text", (c) => c.notNull())
      .addColumn("goal", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      .addColumn("summary", "text", (c) => c.notNull())
      .addColumn("steps", "integer", (c) => c.notNull())
      .addColumn("input_tokens", "integer", (c) => c.notNull())
      .addColumn("output_tokens", "integer", (c) => c.notNull())
      .addColumn("cost_usd", "real", (c) => c.notNull())
      .addColumn("started_at", "integer", (c) => c.notNull())
      .addColumn("ended_at", "integer", (c) => c.notNull())
      .execute();
    await createCronSubagentIndexes(db);
  },
};

/** Shared with PostgreSQL's 0013: a chat's jobs, the due slots in order, a session's sub-agents, and retention's cut. */
export async function createCronSubagentIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("cron_jobs_by_chat").on("cron_jobs").columns(["platform", "chat_id", "created_at", "id"]).execute();
  await db.schema.createIndex("cron_jobs_due").on("cron_jobs").columns(["next_run_at", "id"]).execute();
  await db.schema.createIndex("subagent_runs_by_parent").on("subagent_runs").columns(["parent_session_id", "started_at", "id"]).execute();
  await db.schema.createIndex("subagent_runs_by_end").on("subagent_runs").column("ended_at").execute();
}
