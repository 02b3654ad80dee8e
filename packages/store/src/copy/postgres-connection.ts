import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "../database.js";
import { int8AsNumber } from "../pg/int8-types.js";
import { surviveDroppedConnections } from "../pg/pool-errors.js";

/** A server that does not answer within this is reported as unreachable rather than waited for. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One connection to a PostgreSQL database for an operator command (migrate, copy) or a store's migrations at open:
 * its statements run one after another, and a transaction may run for minutes, so the store's statement timeout is
 * not set.
 */
export function connectPostgres(databaseUrl: string, applicationName: string): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    types: int8AsNumber(),
    max: 1,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: applicationName,
  });
  // A dropped connection fails the statement that needed it, which reports it.
  surviveDroppedConnections(pool, () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
