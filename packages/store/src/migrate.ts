import { Migrator, sql, type Kysely } from "kysely";
import { migrationNames, migrationProvider } from "./migrations/index.js";

export type MigrationError =
  /** The file was written by a newer version of this program; running old code on it could damage it. */
  | { kind: "newer_schema"; message: string; unknownMigrations: string[] }
  | { kind: "migration_failed"; message: string; migration?: string };

export type MigrationOutcome = { ok: true; applied: string[] } | { ok: false; error: MigrationError };

const MIGRATION_TABLE = "kysely_migration";

/**
 * Applies the pending migrations as one BEGIN IMMEDIATE transaction, so a gateway and workers starting together on
 * a new file take turns: the first migrates, the others wait for the lock and then find nothing left to do.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<MigrationOutcome> {
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    let outcome: MigrationOutcome;
    try {
      outcome = await migrateInTransaction(connection);
    } catch (error) {
      await sql`ROLLBACK`.execute(connection);
      throw error;
    }
    await sql.raw(outcome.ok ? "COMMIT" : "ROLLBACK").execute(connection);
    return outcome;
  });
}

async function migrateInTransaction<DB>(db: Kysely<DB>): Promise<MigrationOutcome> {
  const known = new Set(migrationNames());
  const unknownMigrations = (await appliedMigrations(db)).filter((name) => !known.has(name));
  if (unknownMigrations.length > 0) {
    return {
      ok: false,
      error: {
        kind: "newer_schema",
        unknownMigrations,
        message: `the database was created by a newer version (unknown migrations: ${unknownMigrations.join(", ")}); upgrade this program`,
      },
    };
  }
  const migrator = new Migrator({ db, provider: migrationProvider, disableTransactions: true });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === "Error");
    return {
      ok: false,
      error: {
        kind: "migration_failed",
        migration: failed?.migrationName,
        message: error instanceof Error ? error.message : String(error),
      },
    };
  }
  return { ok: true, applied: results.filter((result) => result.status === "Success").map((result) => result.migrationName) };
}

async function appliedMigrations<DB>(db: Kysely<DB>): Promise<string[]> {
  const table = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${MIGRATION_TABLE}`.execute(db);
  if (table.rows.length === 0) return [];
  const rows = await sql<{ name: string }>`SELECT name FROM ${sql.table(MIGRATION_TABLE)} ORDER BY name`.execute(db);
  return rows.rows.map((row) => row.name);
}
