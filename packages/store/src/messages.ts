import type { Message } from "@mariozechner/pi-ai";
import { estimateTokens, parseStoredMessage, searchableText } from "./message-text.js";
import { preparedQuery, type Param } from "./prepared-query.js";
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
      return exec.all(selectRows(db, { sessionId })).map((row) => parseStoredMessage(row.content, `${sessionId}#${row.seq}`));
    },

    async list(sessionId) {
      return exec.all(selectRows(db, { sessionId })).map((row) => ({
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
  const { db, exec } = ctx;
  const last = exec.first(maxSeq(db, { sessionId }));
  const firstSeq = (last?.seq ?? -1) + 1;
  const now = ctx.now();
  messages.forEach((message, index) => {
    exec.run(
      insertMessage(db, {
        sessionId,
        seq: firstSeq + index,
        role: message.role,
        content: JSON.stringify(message),
        text: searchableText(message),
        tokens: estimateTokens(message),
        now,
      }),
    );
  });
  touchSession(ctx, sessionId);
}

function touchSession(ctx: StoreContext, sessionId: string): void {
  ctx.exec.run(touch(ctx.db, { sessionId, now: ctx.now() }));
}

// A finished run writes every message through these, so they are prepared once (prepared-query.ts).
const selectRows = preparedQuery((db, p: Param<{ sessionId: string }>) =>
  db.selectFrom("messages").select(["seq", "content", "tokens", "created_at"]).where("session_id", "=", p("sessionId")).orderBy("seq"),
);
const maxSeq = preparedQuery((db, p: Param<{ sessionId: string }>) =>
  db.selectFrom("messages").select((eb) => eb.fn.max("seq").as("seq")).where("session_id", "=", p("sessionId")),
);
const insertMessage = preparedQuery(
  (db, p: Param<{ sessionId: string; seq: number; role: string; content: string; text: string; tokens: number; now: number }>) =>
    db.insertInto("messages").values({
      session_id: p("sessionId"),
      seq: p("seq"),
      role: p("role"),
      content: p("content"),
      text: p("text"),
      tokens: p("tokens"),
      created_at: p("now"),
    }),
);
const touch = preparedQuery((db, p: Param<{ sessionId: string; now: number }>) =>
  db.updateTable("sessions").set({ updated_at: p("now") }).where("id", "=", p("sessionId")),
);
