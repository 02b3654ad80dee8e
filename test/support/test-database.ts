import { inject } from "vitest";
import pg from "pg";

export interface TestDatabase {
  /** Connection URL of the new database, as the superuser (a store's `databaseUrl`, a process's HERMES_DATABASE_URL). */
  url: string;
  /** Drops it, ending any connection still open on it; a second call does nothing. */
  drop(): Promise<void>;
}

/** Same as global-setup.ts's TEMPLATE_DATABASE; importing it from there would load the set-up into every test. */
const TEMPLATE_DATABASE = "hermes_template";

let created = 0;

/**
 * A new database on the run's PostgreSQL server (global-setup.ts), already at the latest schema: a copy of the
 * migrated template, which takes a fraction of migrating. Names carry the process id, so the parallel test
 * processes never pick the same one.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject("postgresUrl");
  created += 1;
  const name = `hermes_test_${process.pid}_${created}`;
  // FILE_COPY copies the template's few files whole, about twice as fast as the default WAL_LOG for a tiny database
  // (PostgreSQL 15+; durability is off on the test server, so its checkpoints cost little).
  await onServer(serverUrl, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${TEMPLATE_DATABASE} STRATEGY FILE_COPY`),
  );
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  let dropping: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop: () => {
      dropping ??= onServer(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`);
      });
      return dropping;
    },
  };
}

async function onServer<T>(serverUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
