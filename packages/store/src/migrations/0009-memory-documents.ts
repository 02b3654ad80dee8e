import type { Kysely, Migration } from "kysely";

/**
 * MEMORY.md and USER.md of every memory scope, for installs whose memory follows the database (HERMES_DATABASE_URL)
 * instead of $HERMES_HOME/memory. `key` is the file's path below the memory root with `/` separators
 * (`users/telegram/123/MEMORY.md`), `text` the file as it would be on disk, and `version` grows by one with every
 * write: a writer stores only on the version it read (memory-documents.ts). Created on SQLite as well so both schemas
 * stay equal (and `hermes db copy` has a table to fill).
 */
export const memoryDocumentsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("memory_documents")
      .addColumn("key", "text", (c) => c.primaryKey())
      .addColumn("text", "text", (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("updated_at", "integer", (c) => c.notNull())
      .execute();
  },
};
