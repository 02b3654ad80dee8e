import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { postgresMigrationNames } from "../../packages/store/src/pg/migrations/index.js";
import { createTestDatabase } from "./test-database.js";

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const databaseName = (url: string): string => decodeURIComponent(new URL(url).pathname.slice(1));

describe("a test database on the run's PostgreSQL server", () => {
  it("is a new database at the latest schema, empty, apart from every other one", async () => {
    const [first, second] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    if (first === undefined || second === undefined) throw new Error("two databases were asked for");
    try {
      expect(databaseName(first.url)).not.toBe(databaseName(second.url));
      expect(databaseName(first.url)).toContain(String(process.pid));
      const tables = await query<{ table_name: string }>(first.url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      expect(tables.map((table) => table.table_name)).toEqual(expect.arrayContaining(["sessions", "messages", "inbound", "deliveries", "kysely_migration"]));
      const applied = await query<{ name: string }>(first.url, "SELECT name FROM kysely_migration ORDER BY name");
      expect(applied.map((migration) => migration.name)).toEqual(postgresMigrationNames());
      await query(first.url, "INSERT INTO pairing_failures (platform, at) VALUES ('telegram', 1)");
      expect(await query(second.url, "SELECT count(*)::int AS n FROM pairing_failures")).toEqual([{ n: 0 }]);
    } finally {
      await Promise.all([first.drop(), second.drop()]);
    }
  });

  it("is gone after drop, even with a connection still open on it, and a second drop does nothing", async () => {
    const database = await createTestDatabase();
    const lingering = new pg.Client({ connectionString: database.url });
    // The drop ends this connection; its error is expected.
    lingering.on("error", () => undefined);
    await lingering.connect();
    await database.drop();
    await database.drop();
    await lingering.end().catch(() => undefined);
    const names = await query<{ datname: string }>(inject("postgresUrl"), "SELECT datname FROM pg_database WHERE datname = $1", [databaseName(database.url)]);
    expect(names).toEqual([]);
  });
});
