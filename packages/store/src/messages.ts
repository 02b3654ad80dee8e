import type { Message } from "@mariozechner/pi-ai";
import { estimateTokens, parseStoredMessage, searchableText } from "./message-text.js";
import { preparedListQuery, preparedQuery, type Param } from "./prepared-query.js";
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

  return {
    async history(sessionId) {
      return (await exec.all(selectRows(db, { sessionId }))).map((row) => parseStoredMessage(row.content, `${sessionId}#${row.seq}`));
    },

    async list(sessionId) {
      return (await exec.all(selectRows(db, { sessionId }))).map((row) => ({
        sessionId,
        seq: row.seq,
        message: parseStoredMessage(row.content, `${sessionId}#${row.seq}`),
        tokens: row.tokens,
        createdAt: row.created_at,
      }));
    },

    async append(sessionId, messages) {
      await exec.write((tx) => appendMessages({ ...ctx, exec: tx }, sessionId, messages));
    },

    async truncateFrom(sessionId, seq) {
      return exec.write(async (tx) => {
        // On PostgreSQL the session row is locked first, as an append locks it (touchSession), so the two take turns
        // instead of the truncation cutting into an append's positions.
        if (tx.dialect === "postgres") await tx.first(lockSession(db, { sessionId }));
        const { changes } = await tx.run(db.deleteFrom("messages").where("session_id", "=", sessionId).where("seq", ">=", seq));
        if (changes > 0) await touchSession({ ...ctx, exec: tx }, sessionId);
        return changes;
      });
    },

    async count(sessionId) {
      const row = await exec.first(
        db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("count")).where("session_id", "=", sessionId),
      );
      return row?.count ?? 0;
    },

    async lastUserSeq(sessionId) {
      const row = await exec.first(
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

/**
 * Must run inside a write transaction (its `tx` as `ctx.exec`): the next seq is read and used in one step. The
 * session is touched first: on PostgreSQL that locks its row, so two appends to one session take turns there too.
 */
export async function appendMessages(ctx: StoreContext, sessionId: string, messages: readonly Message[]): Promise<void> {
  if (messages.length === 0) return;
  const { db, exec } = ctx;
  await touchSession(ctx, sessionId);
  const last = await exec.first(maxSeq(db, { sessionId }));
  const firstSeq = (last?.seq ?? -1) + 1;
  const now = ctx.now();
  // One INSERT per batch of messages (a run's are one batch): on PostgreSQL each statement is a round trip to the
  // server. Batches stay far below both databases' limits on parameters per statement.
  for (let start = 0; start < messages.length; start += INSERT_BATCH) {
    const fields = messages.slice(start, start + INSERT_BATCH).flatMap((message, index) => [
      firstSeq + start + index,
      message.role,
      JSON.stringify(message),
      // PostgreSQL's text refuses NUL, and it is nothing anyone searches for.
      searchableText(message).replaceAll("\u0000", ""),
      estimateTokens(message),
    ]);
    await exec.run(insertMessages(db, { sessionId, now }, fields));
  }
}

const INSERT_BATCH = 200;

async function touchSession(ctx: StoreContext, sessionId: string): Promise<void> {
  await ctx.exec.run(touch(ctx.db, { sessionId, now: ctx.now() }));
}

// A finished run writes every message through these, so they are prepared once (prepared-query.ts).
const selectRows = preparedQuery((db, p: Param<{ sessionId: string }>) =>
  db.selectFrom("messages").select(["seq", "content", "tokens", "created_at"]).where("session_id", "=", p("sessionId")).orderBy("seq"),
);
const maxSeq = preparedQuery((db, p: Param<{ sessionId: string }>) =>
  db.selectFrom("messages").select((eb) => eb.fn.max("seq").as("seq")).where("session_id", "=", p("sessionId")),
);
/** The values of each message, in this order: seq, role, content, text, tokens (one list for preparedListQuery). */
const MESSAGE_FIELDS = 5;
const insertMessages = preparedListQuery((db, p: Param<{ sessionId: string; now: number }>, fields: readonly unknown[]) => {
  const rows = [];
  for (let at = 0; at < fields.length; at += MESSAGE_FIELDS) {
    const [seq, role, content, text, tokens] = fields.slice(at, at + MESSAGE_FIELDS) as [number, string, string, string, number];
    rows.push({ session_id: p("sessionId"), seq, role, content, text, tokens, created_at: p("now") });
  }
  return db.insertInto("messages").values(rows);
});
const lockSession = preparedQuery((db, p: Param<{ sessionId: string }>) =>
  db.selectFrom("sessions").select("id").where("id", "=", p("sessionId")).forUpdate(),
);
const touch = preparedQuery((db, p: Param<{ sessionId: string; now: number }>) =>
  db.updateTable("sessions").set({ updated_at: p("now") }).where("id", "=", p("sessionId")),
);
