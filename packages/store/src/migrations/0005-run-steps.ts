import type { Kysely, Migration } from "kysely";

/**
 * The model reply of each step of a run, written as soon as it arrives and before its tool calls run, so a run taken
 * up again replays the same calls (same ids, same arguments) instead of asking the model, which may phrase a command
 * differently the second time and so run its side effect twice. One row per step of an open inbound message.
 */
export const runStepsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("run_steps")
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn("inbound_id", "integer", (c) => c.notNull().references("inbound.id").onDelete("cascade"))
      .addColumn("step", "integer", (c) => c.notNull())
      /** JSON of the assistant message as the agent core got it from the model. */
      .addColumn("message", "text", (c) => c.notNull())
      .addColumn("created_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("run_steps_by_inbound_step").on("run_steps").columns(["inbound_id", "step"]).unique().execute();
  },
};
