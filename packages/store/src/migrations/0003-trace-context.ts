import type { Kysely, Migration } from "kysely";

/**
 * The W3C trace context of the span that received each inbound message, so the run (wherever it happens) and the
 * reply's delivery (whenever it happens, after restarts too) join the message's trace.
 */
export const traceContextMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("inbound").addColumn("traceparent", "text").execute();
    await db.schema.alterTable("inbound").addColumn("tracestate", "text").execute();
  },
};
