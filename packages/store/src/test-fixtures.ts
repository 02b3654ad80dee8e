import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "../../../test/support/test-database.js";
import { openStore, type OpenStoreOptions } from "./open-store.js";
import { int8AsNumber } from "./pg/int8-types.js";
import type { Dialect } from "./sql-runner.js";
import type { Store } from "./store.js";
import type { NewSession } from "./types.js";

/** The dialects every repository test runs against (`describe.each(STORE_DIALECTS)`). */
export const STORE_DIALECTS = ["sqlite", "postgres"] as const satisfies readonly Dialect[];

/**
 * Temp folders, databases and stores of one test file; `cleanup` in afterEach closes and removes them all. With
 * "postgres", each `openNew` is a new database on the run's test server (test/support/test-database.ts).
 */
export function storeFixtures(dialect: Dialect = "sqlite") {
  const folders: string[] = [];
  const databases: TestDatabase[] = [];
  const stores: Store[] = [];
  /** The database behind each file `openNew` handed out, so `open(file)` reopens the same one on PostgreSQL too. */
  const databaseOfFile = new Map<string, string>();
  let clock = 1_700_000_000_000;
  let ids = 0;

  const folder = async (): Promise<string> => {
    const created = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
    folders.push(created);
    return created;
  };
  const open = async (file: string, options: Partial<OpenStoreOptions> = {}): Promise<Store> => {
    const newId = (): string => `session-${String(++ids).padStart(4, "0")}`;
    const databaseUrl = databaseOfFile.get(path.resolve(file));
    const store = await openStore({ file, now: () => clock, newId, ...(databaseUrl === undefined ? {} : { databaseUrl }), ...options });
    stores.push(store);
    return store;
  };

  return {
    dialect,
    /** A fresh folder under the system temp dir. */
    folder,
    /** A store on this file; on a file `openNew` gave out under "postgres", on that file's database. */
    open,
    /** The manual clock every store opened here uses: it stands still until `advance`. */
    now: (): number => clock,
    advance(ms: number): void {
      clock += ms;
    },
    /**
     * A store on a new, empty database: a file in a folder that does not exist yet, or under "postgres" a new
     * database (its URL returned; the file then only names it for `open`).
     */
    async openNew(options: Partial<OpenStoreOptions> = {}): Promise<{ store: Store; file: string; databaseUrl?: string }> {
      const file = path.join(await folder(), "state", "state.db");
      if (dialect === "sqlite") return { store: await open(file, options), file };
      const database = await createTestDatabase();
      databases.push(database);
      databaseOfFile.set(path.resolve(file), database.url);
      return { store: await open(file, options), file, databaseUrl: database.url };
    },
    /**
     * Runs one raw SQL statement on the database behind `file` (SQLite, or the PostgreSQL database `openNew` made for
     * it), outside every store: to look at or damage rows as no repository would. Returns the rows it reads.
     */
    async sql<R>(file: string, text: string): Promise<R[]> {
      const databaseUrl = databaseOfFile.get(path.resolve(file));
      if (databaseUrl === undefined) {
        const sqlite = new BetterSqlite3(file);
        try {
          const statement = sqlite.prepare(text);
          if (!statement.reader) statement.run();
          return statement.reader ? (statement.all() as R[]) : [];
        } finally {
          sqlite.close();
        }
      }
      const client = new pg.Client({ connectionString: databaseUrl, types: int8AsNumber() });
      await client.connect();
      try {
        return (await client.query(text)).rows as R[];
      } finally {
        await client.end();
      }
    },
    async cleanup(): Promise<void> {
      for (const store of stores.splice(0)) await store.close();
      for (const database of databases.splice(0)) await database.drop();
      for (const created of folders.splice(0)) await rm(created, { recursive: true, force: true });
      databaseOfFile.clear();
    },
  };
}

export function dmSession(userId: string, overrides: Partial<NewSession> = {}): NewSession {
  return {
    key: `agent:main:telegram:dm:${userId}`,
    platform: "telegram",
    chatId: userId,
    chatType: "dm",
    userId,
    ...overrides,
  };
}

export function userMessage(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, outputTokens = 0): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "openai",
    model: "test-model",
    usage: {
      input: 0,
      output: outputTokens,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: outputTokens,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 2,
  };
}

export function toolResultMessage(text: string): ToolResultMessage {
  return { role: "toolResult", toolCallId: "call-1", toolName: "web_fetch", content: [{ type: "text", text }], isError: false, timestamp: 3 };
}

export function conversation(...texts: string[]): Message[] {
  return texts.map((text, index) => (index % 2 === 0 ? userMessage(text) : assistantMessage(text)));
}
