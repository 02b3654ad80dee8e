import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { isBusyError } from "./busy-retry.js";
import type { BoundQuery } from "./prepared-query.js";
import type { SqlRunner } from "./sql-runner.js";
import { createSqliteRunner } from "./sqlite-runner.js";

const connections: BetterSqlite3.Database[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const connection of connections.splice(0)) if (connection.open) connection.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function databaseFile(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "hermes-runner-"));
  folders.push(folder);
  return path.join(folder, "state.db");
}

function connect(file: string): BetterSqlite3.Database {
  const sqlite = new BetterSqlite3(file);
  connections.push(sqlite);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("busy_timeout = 5");
  return sqlite;
}

async function runnerOnNewFile(): Promise<{ exec: SqlRunner; file: string }> {
  const file = await databaseFile();
  const sqlite = connect(file);
  sqlite.exec("CREATE TABLE notes (text TEXT NOT NULL)");
  return { exec: createSqliteRunner(sqlite), file };
}

const add = (text: string): BoundQuery<unknown> => ({ sql: "INSERT INTO notes (text) VALUES (?)", parameters: [text] });
const notes: BoundQuery<{ text: string }> = { sql: "SELECT text FROM notes ORDER BY rowid", parameters: [] };
const texts = async (exec: SqlRunner): Promise<string[]> => (await exec.all(notes)).map((row) => row.text);

describe("the SQLite runner's transactions on one connection", () => {
  it("runs a statement of the outer runner after the open transaction, so the transaction's rollback does not take it along", async () => {
    const { exec } = await runnerOnNewFile();
    let outside: Promise<unknown> | undefined;
    const failed = exec
      .write(async (tx) => {
        await tx.run(add("in the transaction"));
        outside = exec.run(add("outside"));
        await tx.run(add("also in the transaction"));
        throw new Error("the run failed");
      })
      .catch((error: unknown) => error);

    expect(await failed).toMatchObject({ message: "the run failed" });
    await outside;
    expect(await texts(exec)).toEqual(["outside"]);
  });

  it("lets a read of the outer runner see the transaction's writes only once it has committed", async () => {
    const { exec } = await runnerOnNewFile();
    let read: Promise<string[]> | undefined;
    await exec.write(async (tx) => {
      await tx.run(add("first"));
      read = texts(exec);
      await tx.run(add("second"));
    });
    expect(await read).toEqual(["first", "second"]);
  });

  it("runs a second transaction after the first, not inside it", async () => {
    const { exec } = await runnerOnNewFile();
    const order: string[] = [];
    const slow = exec.write(async (tx) => {
      order.push("a begins");
      await tx.run(add("a1"));
      await tx.run(add("a2"));
      order.push("a ends");
    });
    const fast = exec.write(async (tx) => {
      order.push("b begins");
      await tx.run(add("b1"));
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(["a begins", "a ends", "b begins"]);
    expect(await texts(exec)).toEqual(["a1", "a2", "b1"]);
  });

  it("rolls back a savepoint that fails and commits the rest of its transaction", async () => {
    const { exec } = await runnerOnNewFile();
    await exec.write(async (tx) => {
      await tx.run(add("kept"));
      await tx
        .write(async (inner) => {
          await inner.run(add("rolled back"));
          throw new Error("inner step failed");
        })
        .catch(() => undefined);
      await tx.write(async (inner) => inner.run(add("released")));
    });
    expect(await texts(exec)).toEqual(["kept", "released"]);
  });

  it("rolls back work that throws before returning its promise, and takes the next transaction", async () => {
    const { exec } = await runnerOnNewFile();
    const work = ((tx: SqlRunner) => {
      void tx.run(add("written before the throw"));
      throw new Error("thrown synchronously");
    }) as unknown as (tx: SqlRunner) => Promise<void>;

    await expect(exec.write(work)).rejects.toThrow("thrown synchronously");
    await exec.write(async (tx) => tx.run(add("next")));
    expect(await texts(exec)).toEqual(["next"]);
  });

  it("refuses a statement on a transaction's tx once the transaction has ended", async () => {
    const { exec } = await runnerOnNewFile();
    let leaked: SqlRunner | undefined;
    await exec.write(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.run(add("too late"))).rejects.toThrow("already ended");
    expect(await texts(exec)).toEqual([]);
  });

  it("fails busy at BEGIN while another connection holds the write lock, writing nothing, and frees the connection for what waits", async () => {
    const { exec, file } = await runnerOnNewFile();
    const other = connect(file);
    other.prepare("BEGIN IMMEDIATE").run();

    let ran = false;
    const busy = exec
      .write(async (tx) => {
        ran = true;
        await tx.run(add("never"));
      })
      .catch((error: unknown) => error);
    const queuedWrite = exec.write(async (tx) => tx.run(add("queued"))).catch((error: unknown) => error);

    expect(isBusyError(await busy)).toBe(true);
    expect(ran).toBe(false);
    // The queued transaction found the lock taken too, as its own BEGIN: nothing of either was written.
    expect(isBusyError(await queuedWrite)).toBe(true);
    other.prepare("ROLLBACK").run();
    await exec.write(async (tx) => tx.run(add("after the lock")));
    expect(await texts(exec)).toEqual(["after the lock"]);
  });
});
