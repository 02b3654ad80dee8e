import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, SessionsTable } from "./database.js";
import { isPostgres } from "./dialect.js";
import { preparedQuery, type Param } from "./prepared-query.js";
import type { SqlRunner } from "./sql-runner.js";
import type { StoreContext } from "./store-context.js";
import type { ChatType, NewSession, SessionRecord, SessionStatus } from "./types.js";

export interface SessionRepository {
  /** Atomic: concurrent callers (other stores, other processes) for one key all get the same session. */
  getOrCreateActive(input: NewSession): Promise<{ session: SessionRecord; created: boolean }>;
  active(key: string): Promise<SessionRecord | undefined>;
  get(id: string): Promise<SessionRecord | undefined>;
  /** Marks the key's active session ended and returns it; undefined when the key has none. */
  end(key: string): Promise<SessionRecord | undefined>;
  /**
   * Compression lineage: ends the parent and starts an active child with the same key, chat, user and model override.
   * Throws when the parent does not exist or another session has become active for its key meanwhile.
   */
  continueAsChild(parentId: string, title?: string): Promise<SessionRecord>;
  setModel(id: string, model: string | undefined): Promise<void>;
  setTitle(id: string, title: string): Promise<void>;
  /** Newest first. */
  listForUser(platform: string, userId: string, limit?: number): Promise<SessionRecord[]>;
  /** Most recently updated first (for operators). */
  listRecent(limit?: number): Promise<SessionRecord[]>;
}

const DEFAULT_LIST_LIMIT = 20;

/**
 * Session statements of one transaction (its `tx` as `ctx.exec`; shared with completeRun). The reads lock the row on
 * PostgreSQL (FOR UPDATE), so a transaction that decides on what it read holds it as SQLite's write lock would.
 */
export function sessionStatements(ctx: StoreContext) {
  const { db, exec } = ctx;

  const selectActive = async (key: string): Promise<SessionRecord | undefined> => {
    const row = await exec.first(lockedActiveOfKey(db, { key }));
    return row && toSessionRecord(row);
  };
  const selectById = async (id: string): Promise<SessionRecord | undefined> => {
    const row = await exec.first(lockedById(db, { id }));
    return row && toSessionRecord(row);
  };
  const insertActive = async (input: NewSession & { model?: string }, ifNone = false): Promise<SessionRecord | undefined> => {
    const values = {
      id: ctx.newId(),
      key: input.key,
      platform: input.platform,
      chatId: input.chatId,
      chatType: input.chatType,
      threadId: input.threadId ?? null,
      userId: input.userId ?? null,
      title: input.title ?? null,
      parentId: input.parentId ?? null,
      model: input.model ?? null,
      now: ctx.now(),
    };
    const row = await exec.first(ifNone ? insertSessionIfNoneActive(db, values) : insertSession(db, values));
    if (row === undefined && !ifNone) throw new Error("session insert returned no row");
    return row && toSessionRecord(row);
  };
  const markEnded = async (id: string): Promise<void> => {
    await exec.run(db.updateTable("sessions").set({ status: "ended", updated_at: ctx.now() }).where("id", "=", id));
  };
  /** Ends the parent and starts its child; throws when another session became active for the key meanwhile. */
  const startChild = async (parentId: string, title?: string): Promise<SessionRecord> => {
    const parent = await selectById(parentId);
    if (parent === undefined) throw new Error(`session ${parentId} does not exist`);
    const current = await selectActive(parent.key);
    if (current !== undefined && current.id !== parent.id) {
      throw new Error(`session ${parentId} is no longer the active session of its key`);
    }
    if (parent.status === "active") await markEnded(parent.id);
    const child = await insertActive({
      key: parent.key,
      platform: parent.platform,
      chatId: parent.chatId,
      chatType: parent.chatType,
      threadId: parent.threadId,
      userId: parent.userId,
      title: title ?? parent.title,
      parentId: parent.id,
      model: parent.model,
    });
    if (child === undefined) throw new Error("session insert returned no row");
    return child;
  };
  return { selectActive, selectById, insertActive, markEnded, startChild };
}

export function createSessionRepository(ctx: StoreContext): SessionRepository {
  const { db, exec } = ctx;
  const statements = (tx: SqlRunner) => sessionStatements({ ...ctx, exec: tx });

  return {
    async getOrCreateActive(input) {
      // Nearly always the session exists: found by a plain read, it takes no write lock. A session read as active is
      // what the transaction would have returned at that moment too; only creating one needs the lock.
      const found = await activeSession(input.key);
      if (found) return { session: found, created: false };
      return exec.write(async (tx) => {
        const { selectActive, insertActive } = statements(tx);
        const existing = await selectActive(input.key);
        if (existing) return { session: existing, created: false };
        // On PostgreSQL another caller may insert between that read and this insert (READ COMMITTED): the insert then
        // does nothing (the partial unique index is its conflict target) and that caller's session is read back.
        const created = await insertActive(input, true);
        if (created) return { session: created, created: true };
        const winner = await selectActive(input.key);
        if (winner === undefined) throw new Error(`no active session for ${input.key} after a conflicting insert`);
        return { session: winner, created: false };
      });
    },

    async active(key) {
      return activeSession(key);
    },

    async get(id) {
      const row = await exec.first(byId(db, { id }));
      return row && toSessionRecord(row);
    },

    async end(key) {
      return exec.write(async (tx) => {
        const { selectActive, selectById, markEnded } = statements(tx);
        for (;;) {
          const session = await selectActive(key);
          if (session !== undefined) {
            await markEnded(session.id);
            return selectById(session.id);
          }
          // On PostgreSQL a locking read that waited for the row re-checks that row alone: when another transaction
          // ended it and started a successor (a compaction), the successor is not in the read's snapshot. A new read
          // sees it, and ending that one is what this call is for.
          if (!isPostgres(db) || (await tx.first(activeOfKey(db, { key }))) === undefined) return undefined;
        }
      });
    },

    async continueAsChild(parentId, title) {
      return exec.write(async (tx) => statements(tx).startChild(parentId, title));
    },

    async setModel(id, model) {
      await exec.run(db.updateTable("sessions").set({ model: model ?? null, updated_at: ctx.now() }).where("id", "=", id));
    },

    async setTitle(id, title) {
      await exec.run(db.updateTable("sessions").set({ title, updated_at: ctx.now() }).where("id", "=", id));
    },

    async listRecent(limit = DEFAULT_LIST_LIMIT) {
      const rows = await exec.all(db.selectFrom("sessions").selectAll().orderBy("updated_at", "desc").limit(Math.max(0, Math.floor(limit))));
      return rows.map(toSessionRecord);
    },

    async listForUser(platform, userId, limit = DEFAULT_LIST_LIMIT) {
      // Sessions created in the same millisecond: SQLite's rowid is the order they were made in; PostgreSQL has none,
      // so the id decides.
      const rows = await exec.all(
        db
          .selectFrom("sessions")
          .selectAll()
          .where("platform", "=", platform)
          .where("user_id", "=", userId)
          .orderBy("created_at", "desc")
          .orderBy(isPostgres(db) ? sql`id` : sql`rowid`, "desc")
          .limit(Math.max(0, Math.floor(limit))),
      );
      return rows.map(toSessionRecord);
    },
  };

  async function activeSession(key: string): Promise<SessionRecord | undefined> {
    const row = await exec.first(activeOfKey(db, { key }));
    return row && toSessionRecord(row);
  }
}

// Every answered message looks its session up (prepared-query.ts).
// 'active' is written into the SQL, not bound: only then may the database use the partial unique index on the key
// of active sessions (sessions_one_active_per_key); with a bound status it scanned every session.
const activeOfKey = preparedQuery((db, p: Param<{ key: string }>) =>
  db.selectFrom("sessions").selectAll().where("key", "=", p("key")).where("status", "=", sql.lit("active")),
);
const byId = preparedQuery((db, p: Param<{ id: string }>) => db.selectFrom("sessions").selectAll().where("id", "=", p("id")));
// The same reads inside a write transaction: on PostgreSQL they lock the row until it ends.
const lockedActiveOfKey = preparedQuery((db, p: Param<{ key: string }>) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("key", "=", p("key"))
    .where("status", "=", sql.lit("active"))
    .$if(isPostgres(db), (query) => query.forUpdate()),
);
const lockedById = preparedQuery((db, p: Param<{ id: string }>) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("id", "=", p("id"))
    .$if(isPostgres(db), (query) => query.forUpdate()),
);
type SessionValues = {
  id: string;
  key: string;
  platform: string;
  chatId: string;
  chatType: ChatType;
  threadId: string | null;
  userId: string | null;
  title: string | null;
  parentId: string | null;
  model: string | null;
  now: number;
};
const sessionInsert = (db: Kysely<Database>, p: Param<SessionValues>) =>
  db.insertInto("sessions").values({
    id: p("id"),
    key: p("key"),
    platform: p("platform"),
    chat_id: p("chatId"),
    chat_type: p("chatType"),
    thread_id: p("threadId"),
    user_id: p("userId"),
    title: p("title"),
    status: "active",
    parent_id: p("parentId"),
    model: p("model"),
    created_at: p("now"),
    updated_at: p("now"),
  });
const insertSession = preparedQuery((db, p: Param<SessionValues>) => sessionInsert(db, p).returningAll());
/** Inserts nothing when the key has an active session already (the conflict target is the partial unique index). */
const insertSessionIfNoneActive = preparedQuery((db, p: Param<SessionValues>) =>
  sessionInsert(db, p)
    .onConflict((oc) => oc.column("key").where("status", "=", sql.lit("active")).doNothing())
    .returningAll(),
);

export function toSessionRecord(row: Selectable<SessionsTable>): SessionRecord {
  return {
    id: row.id,
    key: row.key,
    platform: row.platform,
    chatId: row.chat_id,
    chatType: row.chat_type as ChatType,
    threadId: row.thread_id ?? undefined,
    userId: row.user_id ?? undefined,
    title: row.title ?? undefined,
    status: row.status as SessionStatus,
    parentId: row.parent_id ?? undefined,
    model: row.model ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
