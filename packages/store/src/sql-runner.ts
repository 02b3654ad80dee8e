import type { Compilable } from "kysely";
import type { BoundQuery } from "./prepared-query.js";

export interface RunResult {
  /** Rows the statement inserted, changed or deleted. */
  changes: number;
}

export type Dialect = "sqlite" | "postgres";

/**
 * Runs Kysely-built queries on the store's database, the same way for both dialects (sqlite-runner.ts,
 * pg/pg-runner.ts): the repositories build queries with Kysely and hand them here, so one repository serves both.
 *
 * A transaction is `write(async (tx) => …)`: its statements go through `tx`, never through the outer runner (on
 * PostgreSQL they must reach the one pooled connection that holds the transaction; on SQLite a statement of the
 * outer runner waits until the transaction has ended, so it never lands inside someone else's transaction).
 */
export interface SqlRunner {
  readonly dialect: Dialect;
  all<R>(query: Query<R>): Promise<R[]>;
  first<R>(query: Query<R>): Promise<R | undefined>;
  run(query: Query<unknown>): Promise<RunResult>;
  /**
   * Runs `work` as one transaction that commits when it resolves and rolls back when it rejects (a savepoint when
   * called on a transaction's `tx`). SQLite takes the write lock up front (BEGIN IMMEDIATE), so a read-then-write
   * never fails halfway because another process wrote in between; PostgreSQL runs READ COMMITTED, so a read-then-write
   * there must lock what it reads or write conditionally (see the repositories).
   */
  write<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T>;
}

/** A query built by Kysely on the spot, or a prepared one's SQL and values (prepared-query.ts: the hot paths). */
export type Query<R> = Compilable<R> | BoundQuery<R>;

export interface CompiledStatement {
  sql: string;
  parameters: readonly unknown[];
  /** Prepared queries: their SQL is fixed, so a driver may keep them prepared per connection. */
  prepared: boolean;
}

export function compiledStatement(query: Query<unknown>): CompiledStatement {
  if ("compile" in query) {
    const compiled = query.compile();
    return { sql: compiled.sql, parameters: compiled.parameters, prepared: false };
  }
  return { sql: query.sql, parameters: query.parameters, prepared: query.oneOff !== true };
}
