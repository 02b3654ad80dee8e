import { sql, type Kysely, type Migration } from "kysely";

/**
 * PostgreSQL's side of SQLite's 0010_shared_files (../../migrations/0010-shared-files.ts; the meaning of each column
 * is there). `version` comes from the sequence `shared_files_version`, taken while the writer holds a transaction
 * lock (shared-files.ts), so versions become visible in the order they were given out and a reader's "changed since"
 * never skips a write that committed late.
 */
const TEXT = sql`text collate "C"`;

export const sharedFilesPostgresMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await sql`CREATE SEQUENCE shared_files_version AS bigint`.execute(db);
    await db.schema
      .createTable("shared_files")
      .addColumn("path", TEXT, (c) => c.primaryKey())
      .addColumn("content", "bytea", (c) => c.notNull())
      .addColumn("sha256", TEXT, (c) => c.notNull())
      .addColumn("size", "bigint", (c) => c.notNull())
      .addColumn("version", "bigint", (c) => c.notNull())
      .addColumn("deleted", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("session_key", TEXT)
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
    await db.schema.createIndex("shared_files_by_version").on("shared_files").column("version").unique().execute();
    await db.schema.createIndex("shared_files_by_session").on("shared_files").column("session_key").where(sql.ref("session_key"), "is not", null).execute();
  },
};
