import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { int8AsNumber } from "../../packages/store/src/pg/int8-types.js";
import { migratePostgresToLatest } from "../../packages/store/src/pg/migrate-pg.js";
import { ensurePostgresServer, systemPostgresSetupDeps } from "./postgres-setup.js";
import { startPostgres, type TestPostgres } from "./postgres-server.js";
import { ensureRedisServer, systemRedisSetupDeps } from "./redis-setup.js";

/** The migrated database every test database is copied from (test-database.ts). */
export const TEMPLATE_DATABASE = "hermes_template";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's PostgreSQL server (its `postgres` database, as the superuser); see test-database.ts. */
    postgresUrl: string;
  }
}

/**
 * Runs once per `vitest run`: the Redis- and PostgreSQL-backed suites need a redis-server and PostgreSQL's server
 * binaries, so settle that before any starts. Then one PostgreSQL server serves every test file of the run, each
 * test on its own copy of one migrated database: a server per file would cost its start-up and memory per file, and
 * migrating per test would cost more than the test.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const redisDeps = systemRedisSetupDeps();
  const redis = await ensureRedisServer(redisDeps);
  // A thrown error would make vitest add a stack and a misleading "No test files found"; one line says what to do.
  if (!redis.ok) failWith(redis.line, redisDeps.writeLine);
  const postgresDeps = systemPostgresSetupDeps();
  const postgres = await ensurePostgresServer(postgresDeps);
  if (!postgres.ok) failWith(postgres.line, postgresDeps.writeLine);

  const server = await startPostgres();
  try {
    await createTemplate(server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  project.provide("postgresUrl", server.url);
  return () => server.stop();
}

async function createTemplate(server: TestPostgres): Promise<void> {
  const url = await server.createDatabase(TEMPLATE_DATABASE);
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1, types: int8AsNumber() }) }) });
  try {
    const migration = await migratePostgresToLatest(db);
    if (!migration.ok) throw new Error(`migrating ${TEMPLATE_DATABASE} failed: ${migration.error.message}`);
  } finally {
    await db.destroy();
  }
  // CREATE DATABASE … TEMPLATE fails while anyone is connected to the template; refusing connections keeps it so.
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE ${TEMPLATE_DATABASE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await client.end();
  }
}

function failWith(line: string, writeLine: (line: string) => void): never {
  writeLine(line);
  process.exit(1);
}
