import { randomInt } from "node:crypto";
import type { MemoryDocuments } from "@hermes/agent";
import { sql } from "kysely";
import type { StoreContext } from "./store-context.js";

/**
 * The memory files of every scope (MEMORY.md, USER.md) as rows, for HERMES_DATABASE_URL: the agent's MemoryStore
 * reads and writes them through this port as it does the files on disk. Each write is one statement, a conditional
 * UPDATE on the version read or an INSERT that does nothing when the key exists, so the compare-and-swap holds on
 * PostgreSQL under READ COMMITTED without locking anything in between.
 */
/** First versions are drawn below this; an integer column then still has room for a billion writes. */
const FIRST_VERSION_BOUND = 2 ** 30;

export type MemoryDocumentRepository = Required<Omit<MemoryDocuments, "exclusive">>;

export function createMemoryDocumentRepository(ctx: StoreContext): MemoryDocumentRepository {
  const { db, exec } = ctx;
  return {
    async read(key) {
      const row = await exec.first(db.selectFrom("memory_documents").select(["text", "version"]).where("key", "=", key));
      return row && { text: row.text, version: row.version };
    },

    async write(key, text, expectedVersion) {
      // PostgreSQL's text refuses NUL; a memory entry never needs one (an entry that had one reads back without it).
      const stored = text.replaceAll("\u0000", "");
      const now = ctx.now();
      if (expectedVersion === undefined) {
        // A new row starts at a random version, not at 1: a writer that read the row a /forget removed must not find
        // its old version again on a row created since, and write the forgotten entries back.
        const version = randomInt(1, FIRST_VERSION_BOUND);
        const inserted = await exec.run(
          db
            .insertInto("memory_documents")
            .values({ key, text: stored, version, updated_at: now })
            .onConflict((oc) => oc.column("key").doNothing()),
        );
        return inserted.changes === 1 ? { ok: true, version } : { ok: false, reason: "conflict" };
      }
      const updated = await exec.run(
        db
          .updateTable("memory_documents")
          .set({ text: stored, version: expectedVersion + 1, updated_at: now })
          .where("key", "=", key)
          .where("version", "=", expectedVersion),
      );
      return updated.changes === 1 ? { ok: true, version: expectedVersion + 1 } : { ok: false, reason: "conflict" };
    },

    async remove(key) {
      const deleted = await exec.run(db.deleteFrom("memory_documents").where("key", "=", key));
      return deleted.changes > 0;
    },

    async list(prefix) {
      // Not LIKE: SQLite's ignores case, and user ids differ by case. The range lets the primary key find the start.
      const rows = await exec.all(
        db
          .selectFrom("memory_documents")
          .select("key")
          .where("key", ">=", prefix)
          .where(sql<string>`substr(key, 1, ${sql.lit([...prefix].length)})`, "=", prefix)
          .orderBy("key"),
      );
      return rows.map((row) => row.key);
    },
  };
}
