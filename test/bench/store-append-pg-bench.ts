import type { Message } from "@mariozechner/pi-ai";
import { estimateTokens, openStore, searchableText } from "@hermes/store";
import pg from "pg";
import { startPostgres } from "../support/postgres-server.js";
import { QUICK, seededRandom, wordSource } from "./bench-words.js";
import type { BenchFigure } from "./gateway-bench.js";
import { runMessages } from "./store-bench.js";
import { compareAppends } from "./store-bench-shared.js";

const INSERT_MESSAGE = `INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`;

/**
 * The PostgreSQL side of the append benchmark: `messages.append` against node-postgres inserting the same rows
 * itself (one transaction per run, a named prepared INSERT, one pooled connection), on two databases of one
 * throw-away server with the store's schema. Batches alternate between the two. The ratio is this process's CPU time
 * (what the store adds over the driver) and wall clock (round trips included, the server's work alike for both).
 */
export async function storeAppendPostgresBenchmark(): Promise<BenchFigure[]> {
  const server = await startPostgres();
  const words = wordSource(seededRandom(7));
  const runs = QUICK ? 300 : 1_500;
  const batches = 10;
  const transcripts = Array.from({ length: runs }, (_, turn) => runMessages(words, turn));
  const store = await openStore({ file: ":memory:", databaseUrl: await server.createDatabase("bench_store") });
  // The raw side gets the same schema: migrated by a store opened once and closed.
  const rawUrl = await server.createDatabase("bench_raw");
  await (await openStore({ file: ":memory:", databaseUrl: rawUrl })).close();
  const raw = new pg.Client({ connectionString: rawUrl });
  await raw.connect();
  try {
    const session = (await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:1", platform: "telegram", chatId: "1", chatType: "dm", userId: "1" })).session;
    const now = Date.now();
    await raw.query(
      `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, status, created_at, updated_at) VALUES ('s', 'k', 'telegram', '1', 'dm', '1', 'active', $1, $1)`,
      [now],
    );
    let rawSeq = 0;
    const rawAppend = async (messages: readonly Message[]): Promise<void> => {
      const createdAt = Date.now();
      await raw.query("BEGIN");
      for (const message of messages) {
        await raw.query({
          name: "bench_insert_message",
          text: INSERT_MESSAGE,
          values: ["s", rawSeq++, message.role, JSON.stringify(message), searchableText(message), estimateTokens(message), createdAt],
        });
      }
      await raw.query("COMMIT");
    };
    const { store: store_, raw: raw_ } = await compareAppends(transcripts, batches, (messages) => store.messages.append(session.id, messages), rawAppend);
    return [
      { name: `PostgreSQL store append, ${runs} runs × 4 messages (CPU)`, value: (store_.cpuMs * 1000) / runs, unit: "µs/run" },
      { name: "raw node-postgres, same rows (CPU)", value: (raw_.cpuMs * 1000) / runs, unit: "µs/run" },
      { name: "PostgreSQL store append vs raw pg (wall clock)", value: raw_.wallMs / store_.wallMs, unit: "×" },
      { name: "PostgreSQL store append vs raw pg (CPU time)", value: raw_.cpuMs / store_.cpuMs, unit: "×", target: { min: 0.7 } },
    ];
  } finally {
    await raw.end();
    await store.close();
    await server.stop();
  }
}
