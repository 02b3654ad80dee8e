import type { Message } from "@mariozechner/pi-ai";
import { CompiledQuery, type Compilable, type Kysely } from "kysely";
import type { Database } from "./database.js";
import { estimateTokens, parseStoredMessage, searchableText } from "./message-text.js";
import type { StoreContext } from "./store-context.js";
import type { StoredMessage } from "./types.js";

export interface MessageRepository {
  /** The transcript in order, ready to hand to the model. */
  history(sessionId: string): Promise<Message[]>;
  list(sessionId: string): Promise<StoredMessage[]>;
  /** Appends after the last stored message; all or nothing. */
  append(sessionId: string, messages: readonly Message[]): Promise<void>;
  /** Deletes the messages from position `seq` on (for /retry and /undo) and returns how many went. */
  truncateFrom(sessionId: string, seq: number): Promise<number>;
  count(sessionId: string): Promise<number>;
  lastUserSeq(sessionId: string): Promise<number | undefined>;
}

export function createMessageRepository(ctx: StoreContext): MessageRepository {
  const { db, exec } = ctx;

  const selectRows = (sessionId: string) =>
    exec.all(db.selectFrom("messages").select(["seq", "content", "tokens", "created_at"]).where("session_id", "=", sessionId).orderBy("seq"));

  return {
    async history(sessionId) {
      return selectRows(sessionId).map((row) => parseStoredMessage(row.content, `${sessionId}#${row.seq}`));
    },

    async list(sessionId) {
      return selectRows(sessionId).map((row) => ({
        sessionId,
        seq: row.seq,
        message: parseStoredMessage(row.content, `${sessionId}#${row.seq}`),
        tokens: row.tokens,
        createdAt: row.created_at,
      }));
    },

    async append(sessionId, messages) {
      exec.write(() => appendMessages(ctx, sessionId, messages));
    },

    async truncateFrom(sessionId, seq) {
      return exec.write(() => {
        const { changes } = exec.run(db.deleteFrom("messages").where("session_id", "=", sessionId).where("seq", ">=", seq));
        if (changes > 0) touchSession(ctx, sessionId);
        return changes;
      });
    },

    async count(sessionId) {
      const row = exec.first(
        db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("count")).where("session_id", "=", sessionId),
      );
      return row?.count ?? 0;
    },

    async lastUserSeq(sessionId) {
      const row = exec.first(
        db
          .selectFrom("messages")
          .select((eb) => eb.fn.max("seq").as("seq"))
          .where("session_id", "=", sessionId)
          .where("role", "=", "user"),
      );
      return row?.seq ?? undefined;
    },
  };
}

/** Must run inside a write transaction: the next seq is read and used in one step. */
export function appendMessages(ctx: StoreContext, sessionId: string, messages: readonly Message[]): void {
  if (messages.length === 0) return;
  const { exec } = ctx;
  const statements = appendStatements(ctx.db);
  const last = exec.first(compiled<{ seq: number | null }>(statements.maxSeq, [sessionId]));
  const firstSeq = (last?.seq ?? -1) + 1;
  const now = ctx.now();
  messages.forEach((message, index) => {
    // The same order as the columns of the compiled INSERT.
    const row = [sessionId, firstSeq + index, message.role, JSON.stringify(message), searchableText(message), estimateTokens(message), now];
    exec.run(compiled(statements.insert, row));
  });
  touchSession(ctx, sessionId);
}

function touchSession(ctx: StoreContext, sessionId: string): void {
  ctx.exec.run(compiled(appendStatements(ctx.db).touch, [ctx.now(), sessionId]));
}

interface AppendStatements {
  maxSeq: string;
  insert: string;
  touch: string;
}

/**
 * Building and compiling a Kysely query costs more than SQLite takes to run it (tens of µs each), and a finished
 * run writes every message this way, so the SQL of these statements is compiled once per database; only their
 * parameters change.
 */
const appendSql = new WeakMap<Kysely<Database>, AppendStatements>();

function appendStatements(db: Kysely<Database>): AppendStatements {
  let statements = appendSql.get(db);
  if (statements === undefined) {
    statements = {
      maxSeq: db.selectFrom("messages").select((eb) => eb.fn.max("seq").as("seq")).where("session_id", "=", "").compile().sql,
      insert: db
        .insertInto("messages")
        .values({ session_id: "", seq: 0, role: "", content: "", text: "", tokens: 0, created_at: 0 })
        .compile().sql,
      touch: db.updateTable("sessions").set({ updated_at: 0 }).where("id", "=", "").compile().sql,
    };
    appendSql.set(db, statements);
  }
  return statements;
}

function compiled<R = unknown>(sql: string, parameters: unknown[]): Compilable<R> {
  return { compile: () => CompiledQuery.raw(sql, parameters) as CompiledQuery<R> };
}
