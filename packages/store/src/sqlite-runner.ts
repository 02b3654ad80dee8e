import type BetterSqlite3 from "better-sqlite3";
import { compiledStatement, type Query, type RunResult, type SqlRunner } from "./sql-runner.js";

const STATEMENT_CACHE_LIMIT = 256;

/**
 * The SQLite runner: better-sqlite3 runs each statement synchronously, and the promise only hands its result over.
 *
 * A transaction awaits between its statements, so other work of the process runs meanwhile. Two rules keep that
 * safe on one connection: only one transaction is open at a time (the next `write` waits for it), and a statement of
 * the outer runner waits too instead of running inside the open transaction, where a rollback would take it along.
 * Another connection (a second store on the same file, another process) that finds the write lock taken waits a few
 * milliseconds inside SQLite (busy_timeout) and then fails busy, to be tried again asynchronously (busy-retry.ts), so
 * the thread that holds the lock is never blocked by one waiting for it for more than those milliseconds.
 */
export function createSqliteRunner(sqlite: BetterSqlite3.Database): SqlRunner {
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = (query: Query<unknown>): { statement: BetterSqlite3.Statement; parameters: readonly unknown[] } => {
    const { sql, parameters } = compiledStatement(query);
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = sqlite.prepare(sql);
      if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
      statements.set(sql, statement);
    }
    return { statement, parameters };
  };
  const all = <R>(query: Query<R>): R[] => {
    const { statement, parameters } = prepare(query);
    return statement.all(...parameters) as R[];
  };
  const first = <R>(query: Query<R>): R | undefined => {
    const { statement, parameters } = prepare(query);
    return statement.get(...parameters) as R | undefined;
  };
  const run = (query: Query<unknown>): RunResult => {
    const { statement, parameters } = prepare(query);
    return { changes: statement.run(...parameters).changes };
  };
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");

  /** Settles when the open transaction has ended; undefined while none is open. */
  let open: Promise<void> | undefined;

  const outer: SqlRunner = {
    dialect: "sqlite",
    all: (query) => (open === undefined ? settle(() => all(query)) : afterOpen(() => outer.all(query))),
    first: (query) => (open === undefined ? settle(() => first(query)) : afterOpen(() => outer.first(query))),
    run: (query) => (open === undefined ? settle(() => run(query)) : afterOpen(() => outer.run(query))),
    async write(work) {
      while (open !== undefined) await open;
      let ended!: () => void;
      open = new Promise<void>((resolve) => {
        ended = resolve;
      });
      const tx = transactionRunner();
      try {
        // A busy BEGIN wrote nothing: the caller's retry (busy-retry.ts) tries the whole operation again.
        begin.run();
        try {
          const result = await work(tx.runner);
          commit.run();
          return result;
        } catch (error) {
          if (sqlite.inTransaction) rollback.run();
          throw error;
        }
      } finally {
        tx.end();
        open = undefined;
        ended();
      }
    },
  };

  const afterOpen = <T>(next: () => Promise<T>): Promise<T> => (open ?? Promise.resolve()).then(next);

  /** The `tx` of one transaction: it runs statements at once, and refuses them once the transaction has ended. */
  const transactionRunner = (): { runner: SqlRunner; end: () => void } => {
    let active = true;
    let savepoints = 0;
    const guard = <T>(step: () => T): Promise<T> =>
      active ? settle(step) : Promise.reject(new Error("a statement ran on a transaction that has already ended"));
    const runner: SqlRunner = {
      dialect: "sqlite",
      all: (query) => guard(() => all(query)),
      first: (query) => guard(() => first(query)),
      run: (query) => guard(() => run(query)),
      async write(work) {
        if (!active) throw new Error("a savepoint was opened on a transaction that has already ended");
        savepoints += 1;
        const name = `hermes_savepoint_${savepoints}`;
        sqlite.exec(`SAVEPOINT ${name}`);
        try {
          const result = await work(runner);
          sqlite.exec(`RELEASE ${name}`);
          return result;
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
          throw error;
        } finally {
          savepoints -= 1;
        }
      },
    };
    return {
      runner,
      end: () => {
        active = false;
      },
    };
  };

  return outer;
}

function settle<T>(step: () => T): Promise<T> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error);
  }
}
