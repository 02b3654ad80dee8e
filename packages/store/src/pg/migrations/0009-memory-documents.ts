import { sql, type Kysely, type Migration } from "kysely";

/** PostgreSQL's side of SQLite's 0009_memory_documents (../../migrations/0009-memory-documents.ts explains the table). */
const TEXT = sql`text collate "C"`;

export const memoryDocumentsPostgresMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("memory_documents")
      .addColumn("key", TEXT, (c) => c.primaryKey())
      .addColumn("text", TEXT, (c) => c.notNull())
      .addColumn("version", "integer", (c) => c.notNull())
      .addColumn("updated_at", "bigint", (c) => c.notNull())
      .execute();
  },
};
