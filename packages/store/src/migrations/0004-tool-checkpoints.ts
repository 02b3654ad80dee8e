import type { Kysely, Migration } from "kysely";

/**
 * The result of each tool call of a run, written as soon as the call finishes, so a run taken up again after a crash
 * or a lost lease replays what already happened (a `terminal` command, a file write) instead of doing it twice.
 * Rows belong to one inbound message; a /retry is a new inbound message and so starts with none.
 */
export const toolCheckpointsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("tool_checkpoints")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("inbound_id", "integer", (c) => c.notNull().references("inbound.id").onDelete("cascade"))
      .addColumn("step", "integer", (c) => c.notNull())
      .addColumn("position", "integer", (c) => c.notNull())
      .addColumn("tool_call_id", "text", (c) => c.notNull())
      .addColumn("tool_name", "text", (c) => c.notNull())
      .addColumn("arguments_hash", "text", (c) => c.notNull())
      .addColumn("status", "text", (c) => c.notNull())
      /** JSON of the tool's result (content, isError, details) before any result budget is applied. */
      .addColumn("result", "text", (c) => c.notNull())
      .addColumn("duration_ms", "integer", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("tool_checkpoints_by_inbound").on("tool_checkpoints").columns(["inbound_id", "id"]).execute();
  },
};
