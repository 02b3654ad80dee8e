import { sql, type Kysely, type Migration } from "kysely";

/**
 * Files that follow the deployment rather than one machine's $HERMES_HOME (agent-made skills, hooks/state.json, a
 * session's attachments and saved tool output), so a worker with an empty home of its own finds them. `path` is
 * relative to HERMES_HOME with `/` separators. `version` grows with every write across the table, so a process asks
 * for what changed since the last version it saw with one indexed query; a removal keeps the row as a tombstone
 * (`deleted`) so that question also finds removals. Used with HERMES_DATABASE_URL; created on SQLite as well so both
 * schemas stay equal (and `hermes db copy` has a table to read).
 */
export const sharedFilesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("shared_files")
      .addColumn("path", "text", (c) => c.primaryKey())
      .addColumn("content", "blob", (c) => c.notNull())
      .addColumn("sha256", "text", (c) => c.notNull())
      .addColumn("size", "integer", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("deleted", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("session_key", "text")
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("shared_files_by_version").on("shared_files").column("version").unique().execute();
    await db.schema.createIndex("shared_files_by_session").on("shared_files").column("session_key").where(sql.ref("session_key"), "is not", null).execute();
  },
};
