import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { migrateToLatest } from "../migrate.js";
import { COPIED_TABLES, SQLITE_ONLY_TABLES } from "./copied-tables.js";

/** A SQLite database after every migration, and its tables. */
async function migratedSqlite(): Promise<BetterSqlite3.Database> {
  const sqlite = new BetterSqlite3(":memory:");
  const outcome = await migrateToLatest(new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) }));
  expect(outcome.ok).toBe(true);
  return sqlite;
}

describe("the tables hermes db copy moves", () => {
  it("are every table of a freshly migrated SQLite file except SQLite's own and its FTS5 index", async () => {
    const sqlite = await migratedSqlite();
    const tables = (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
    sqlite.close();
    // A table added by a migration must be named in COPIED_TABLES (or SQLITE_ONLY_TABLES), or installs lose it.
    expect(tables.filter((name) => !SQLITE_ONLY_TABLES.has(name)).sort()).toEqual(COPIED_TABLES.map((table) => table.name).sort());
    expect(tables).toContain("messages_fts_data");
    expect(new Set(COPIED_TABLES.map((table) => table.name)).size).toBe(COPIED_TABLES.length);
  });

  it("come after the tables their foreign keys point at; a reference to the same table is set after the insert", async () => {
    const sqlite = await migratedSqlite();
    const order: string[] = COPIED_TABLES.map((table) => table.name);
    const references: string[] = [];
    for (const [index, table] of COPIED_TABLES.entries()) {
      const keys = sqlite.prepare("SELECT \"table\" AS target, \"from\" AS column FROM pragma_foreign_key_list(?)").all(table.name) as Array<{ target: string; column: string }>;
      for (const key of keys) {
        references.push(`${table.name}.${key.column} -> ${key.target}`);
        if (key.target === table.name) expect(table.selfReferences ?? []).toContain(key.column);
        else expect(order.indexOf(key.target), `${table.name}.${key.column} points at ${key.target}`).toBeLessThan(index);
        expect(order).toContain(key.target);
      }
    }
    sqlite.close();
    expect(references).toContain("sessions.parent_id -> sessions");
    expect(references).toContain("tool_checkpoints.inbound_id -> inbound");
  });
});
