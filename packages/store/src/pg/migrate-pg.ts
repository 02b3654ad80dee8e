import { DEFAULT_MIGRATION_TABLE, Migrator, sql, type Kysely } from "kysely";
import type { MigrationOutcome } from "../migrate.js";
import { postgresMigrationNames, postgresMigrationProvider } from "./migrations/index.js";

/**
 * Applies the pending PostgreSQL migrations, all in one transaction (PostgreSQL's DDL is transactional, and Kysely's
 * Migrator wraps the pending ones in a single transaction when the adapter supports it), so a failure leaves the
 * database as it was.
 *
 * Processes starting together take turns: Kysely's PostgresAdapter.acquireMigrationLock takes the session-level
 * `pg_advisory_lock(3853314791062309107)` on the connection that then runs the migrations, with a one-hour
 * lock_timeout, and releaseMigrationLock unlocks it afterwards (node_modules/kysely/dist/esm/dialect/postgres/
 * postgres-adapter.js; Migrator#runMigrations in migration/migrator.js reads the applied migrations only after taking
 * it). The one who waited then finds nothing left to do. Advisory locks are per database, so databases of one server
 * do not wait for each other. The migration tables are created before the lock, but Kysely tolerates losing that
 * race (it re-checks that the table exists when CREATE TABLE IF NOT EXISTS fails).
 */
export async function migratePostgresToLatest<DB>(db: Kysely<DB>): Promise<MigrationOutcome> {
  const unknownBefore = await unknownMigrations(db);
  if (unknownBefore.length > 0) return newerSchema(unknownBefore);
  const migrator = new Migrator({ db, provider: postgresMigrationProvider });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    // A newer version may have migrated between the check above and the lock; Kysely then reports a missing migration.
    const unknownAfter = await unknownMigrations(db);
    if (unknownAfter.length > 0) return newerSchema(unknownAfter);
    const failed = results.find((result) => result.status === "Error");
    return {
      ok: false,
      error: { kind: "migration_failed", migration: failed?.migrationName, message: error instanceof Error ? error.message : String(error) },
    };
  }
  return { ok: true, applied: results.filter((result) => result.status === "Success").map((result) => result.migrationName) };
}

function newerSchema(unknown: string[]): MigrationOutcome {
  return {
    ok: false,
    error: {
      kind: "newer_schema",
      unknownMigrations: unknown,
      message: `the database was created by a newer version (unknown migrations: ${unknown.join(", ")}); upgrade this program`,
    },
  };
}

/** Applied migrations this version does not know, in name order; none on a database never migrated. */
async function unknownMigrations<DB>(db: Kysely<DB>): Promise<string[]> {
  // to_regclass resolves the name through search_path, as the Migrator's unqualified table name does.
  const table = await sql<{ present: boolean }>`SELECT to_regclass(${DEFAULT_MIGRATION_TABLE}) IS NOT NULL AS present`.execute(db);
  if (table.rows[0]?.present !== true) return [];
  const known = new Set(postgresMigrationNames());
  const applied = await sql<{ name: string }>`SELECT name FROM ${sql.table(DEFAULT_MIGRATION_TABLE)} ORDER BY name`.execute(db);
  return applied.rows.map((row) => row.name).filter((name) => !known.has(name));
}
