import pg from "pg";
import { inject } from "vitest";

/**
 * A test database going away and coming back, on the run's PostgreSQL server (as its superuser) without disturbing the
 * other test files' databases: while away it refuses new connections and has lost the ones it had.
 */
export async function setDatabaseReachable(url: string, reachable: boolean): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const client = new pg.Client({ connectionString: inject("postgresUrl") });
  await client.connect();
  try {
    await client.query(`ALTER DATABASE ${client.escapeIdentifier(name)} ALLOW_CONNECTIONS ${reachable ? "true" : "false"}`);
    if (!reachable) await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
  } finally {
    await client.end();
  }
}
