import type pg from "pg";
import { compiledStatement, type Query, type RunResult, type SqlRunner } from "../sql-runner.js";

/** Prepared statements kept per connection at most; past it, statements run unnamed (parsed each time). */
const PREPARED_NAME_LIMIT = 512;

/**
 * PostgreSQL's text cannot hold U+0000, which SQLite stores: it is dropped from every string bound, so a reply, a
 * title or an error text that carries one is stored without it instead of failing its whole transaction (a completed
 * run, with it), and a look-up by such a value finds what was stored. JSON (message content, payloads) escapes it.
 */
function withoutNul(value: unknown): unknown {
  return typeof value === "string" && value.includes("\u0000") ? value.replaceAll("\u0000", "") : value;
}

/**
 * The PostgreSQL runner on a node-postgres pool. A statement outside a transaction takes any pooled connection; a
 * transaction takes one connection for its whole length, and its statements go through its `tx`.
 *
 * The hot queries (prepared-query.ts) run as named prepared statements, which PostgreSQL parses and plans once per
 * connection; queries built on the spot vary (lists of any length), so they stay unnamed.
 */
export function createPostgresRunner(pool: pg.Pool): SqlRunner {
  const names = new Map<string, string>();
  const config = (query: Query<unknown>): pg.QueryConfig => {
    const { sql, parameters, prepared } = compiledStatement(query);
    let name = prepared ? names.get(sql) : undefined;
    if (prepared && name === undefined && names.size < PREPARED_NAME_LIMIT) {
      name = `hermes_${names.size + 1}`;
      names.set(sql, name);
    }
    const values = parameters.map(withoutNul);
    return name === undefined ? { text: sql, values } : { name, text: sql, values };
  };

  const on = (client: pg.Pool | pg.PoolClient, write: SqlRunner["write"]): SqlRunner => ({
    dialect: "postgres",
    async all<R>(query: Query<R>): Promise<R[]> {
      return (await client.query(config(query))).rows as R[];
    },
    async first<R>(query: Query<R>): Promise<R | undefined> {
      return (await client.query(config(query))).rows[0] as R | undefined;
    },
    async run(query: Query<unknown>): Promise<RunResult> {
      return { changes: (await client.query(config(query))).rowCount ?? 0 };
    },
    write,
  });

  const inTransaction = (client: pg.PoolClient): SqlRunner => {
    let savepoints = 0;
    const runner: SqlRunner = on(client, async (work) => {
      savepoints += 1;
      const name = `hermes_savepoint_${savepoints}`;
      await client.query(`SAVEPOINT ${name}`);
      try {
        const result = await work(runner);
        await client.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        throw error;
      } finally {
        savepoints -= 1;
      }
    });
    return runner;
  };

  return on(pool, async (work) => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      try {
        const result = await work(inTransaction(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // A connection that cannot even roll back is not handed to the next caller.
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      }
    } finally {
      client.release(broken);
    }
  });
}
