import type BetterSqlite3 from "better-sqlite3";
import type { Compilable } from "kysely";
import type { BoundQuery } from "./prepared-query.js";

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

/**
 * Executes Kysely-built queries on the better-sqlite3 connection synchronously.
 *
 * Why synchronous: better-sqlite3 waits for locks by blocking the thread. A transaction that awaited between its
 * statements would let another connection of the same process (a second store on the same file) block the thread
 * while this one still holds the write lock, which can never be released. A transaction that runs start to finish
 * without yielding cannot be interleaved; other connections that find its lock taken wait a few milliseconds inside
 * SQLite and then try again asynchronously (busy-retry.ts), so the thread is never held for long. It also means a
 * repository operation that failed busy wrote nothing, which is what makes trying it again safe.
 */
export interface SqlRunner {
  all<R>(query: Query<R>): R[];
  first<R>(query: Query<R>): R | undefined;
  run(query: Query<unknown>): RunResult;
  /**
   * Runs `work` as one BEGIN IMMEDIATE transaction (a savepoint when nested). Taking the write lock up front means
   * a read-then-write never fails halfway because another process wrote in between.
   */
  write<T>(work: () => T): T;
}

/** A query built by Kysely on the spot, or a prepared one's SQL and values (prepared-query.ts: the hot paths). */
export type Query<R> = Compilable<R> | BoundQuery<R>;

const STATEMENT_CACHE_LIMIT = 256;

export function createSqlRunner(sqlite: BetterSqlite3.Database): SqlRunner {
  const statements = new Map<string, BetterSqlite3.Statement>();

  // One transaction function for every write: better-sqlite3 builds several wrappers for each `transaction()` call.
  const transaction = sqlite.transaction((work: () => unknown) => work());

  const prepare = (query: Query<unknown>): { statement: BetterSqlite3.Statement; parameters: readonly unknown[] } => {
    const compiled = "compile" in query ? query.compile() : query;
    let statement = statements.get(compiled.sql);
    if (statement === undefined) {
      statement = sqlite.prepare(compiled.sql);
      if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
      statements.set(compiled.sql, statement);
    }
    return { statement, parameters: compiled.parameters };
  };

  return {
    all<R>(query: Query<R>): R[] {
      const { statement, parameters } = prepare(query);
      return statement.all(...parameters) as R[];
    },
    first<R>(query: Query<R>): R | undefined {
      const { statement, parameters } = prepare(query);
      return statement.get(...parameters) as R | undefined;
    },
    run(query: Query<unknown>): RunResult {
      const { statement, parameters } = prepare(query);
      const result = statement.run(...parameters);
      return { changes: result.changes, lastInsertRowid: Number(result.lastInsertRowid) };
    },
    write<T>(work: () => T): T {
      return transaction.immediate(work) as T;
    },
  };
}
