import BetterSqlite3 from "better-sqlite3";
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./database.js";
import { preparedListQuery, preparedQuery, type Param } from "./prepared-query.js";
import { createSqliteRunner } from "./sqlite-runner.js";

const connections: BetterSqlite3.Database[] = [];
afterEach(() => {
  for (const connection of connections.splice(0)) connection.close();
});

function sqliteDb(): { db: Kysely<Database>; sqlite: BetterSqlite3.Database } {
  const sqlite = new BetterSqlite3(":memory:");
  connections.push(sqlite);
  sqlite.exec(`CREATE TABLE inbound (id INTEGER PRIMARY KEY, platform TEXT, message_id TEXT, session_key TEXT, status TEXT, payload TEXT,
    received_at INTEGER, updated_at INTEGER, traceparent TEXT, tracestate TEXT)`);
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) }), sqlite };
}

/** PostgreSQL's compiler without a server: compiling needs no connection. */
function postgresDb(): Kysely<Database> {
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

const openOfKey = preparedQuery((db, p: Param<{ key: string; since: number }>) =>
  db
    .selectFrom("inbound")
    .select(["id", "status"])
    .where("updated_at", ">=", p("since"))
    .where("status", "in", ["queued", "running"])
    .where("session_key", "=", p("key"))
    .orderBy("id")
    .limit(2),
);

describe("preparedQuery", () => {
  it("gives the SQL and values Kysely compiles for the same query, constants of the builder included", () => {
    const { db } = sqliteDb();
    const direct = db
      .selectFrom("inbound")
      .select(["id", "status"])
      .where("updated_at", ">=", 7)
      .where("status", "in", ["queued", "running"])
      .where("session_key", "=", "k1")
      .orderBy("id")
      .limit(2)
      .compile();

    const bound = openOfKey(db, { key: "k1", since: 7 });

    expect(bound.sql).toBe(direct.sql);
    expect(bound.parameters).toEqual(direct.parameters);
    expect(bound.parameters).toEqual([7, "queued", "running", "k1", 2]);
  });

  it("runs through the SqlRunner like a built query, with each call's own values", async () => {
    const { db, sqlite } = sqliteDb();
    const exec = createSqliteRunner(sqlite);
    sqlite.exec(`INSERT INTO inbound (id, session_key, status, updated_at) VALUES (1, 'a', 'queued', 5), (2, 'a', 'answered', 5), (3, 'b', 'running', 9), (4, 'a', 'running', 9)`);

    expect(await exec.all(openOfKey(db, { key: "a", since: 0 }))).toEqual([
      { id: 1, status: "queued" },
      { id: 4, status: "running" },
    ]);
    expect(await exec.all(openOfKey(db, { key: "a", since: 6 }))).toEqual([{ id: 4, status: "running" }]);
    expect(await exec.all(openOfKey(db, { key: "b", since: 0 }))).toEqual([{ id: 3, status: "running" }]);
  });

  it("builds the query once per Kysely instance, and compiles it for that instance's dialect", () => {
    let builds = 0;
    const byId = preparedQuery((db, p: Param<{ id: number }>) => {
      builds += 1;
      return db.selectFrom("inbound").select("status").where("id", "=", p("id")).where("status", "!=", "ignored");
    });
    const { db } = sqliteDb();
    const pg = postgresDb();

    byId(db, { id: 1 });
    byId(db, { id: 2 });
    expect(builds).toBe(1);
    expect(byId(pg, { id: 3 })).toEqual({ sql: `select "status" from "inbound" where "id" = $1 and "status" != $2`, parameters: [3, "ignored"] });
    expect(builds).toBe(2);
    expect(byId(db, { id: 4 }).sql).toBe(`select "status" from "inbound" where "id" = ? and "status" != ?`);
  });

  it("fails on a parameter the builder computed with instead of passing it on, and on a missing value", () => {
    const { db } = sqliteDb();
    const computed = preparedQuery((built, p: Param<{ id: number }>) => built.selectFrom("inbound").select("id").where("id", "=", p("id") + 1));
    expect(() => computed(db, { id: 1 })).toThrow(/parameter "id" of a prepared query did not reach Kysely as a value/);

    expect(() => openOfKey(db, { key: "a" } as { key: string; since: number })).toThrow(/no value for parameter "since"/);
  });
});

describe("preparedListQuery", () => {
  it("takes each item of the list as its own value, for lists of any length", async () => {
    const { db, sqlite } = sqliteDb();
    const exec = createSqliteRunner(sqlite);
    sqlite.exec(`INSERT INTO inbound (id, platform, status) VALUES (1, 'telegram', 'queued'), (2, 'discord', 'queued'), (3, 'slack', 'queued'), (4, 'slack', 'answered')`);
    let builds = 0;
    const ofPlatforms = preparedListQuery((built, p: Param<{ status: string }>, platforms: readonly string[]) => {
      builds += 1;
      return built.selectFrom("inbound").select("id").where("platform", "in", [...platforms]).where("status", "=", p("status")).orderBy("id");
    });

    expect(await exec.all(ofPlatforms(db, { status: "queued" }, ["slack", "telegram"]))).toEqual([{ id: 1 }, { id: 3 }]);
    expect(await exec.all(ofPlatforms(db, { status: "queued" }, ["discord", "telegram"]))).toEqual([{ id: 1 }, { id: 2 }]);
    expect(ofPlatforms(db, { status: "answered" }, ["slack"]).parameters).toEqual(["slack", "answered"]);
    expect(await exec.all(ofPlatforms(db, { status: "queued" }, ["discord", "slack", "telegram"]))).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(builds).toBe(3);
  });
});
