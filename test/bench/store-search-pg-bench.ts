import { openStore } from "@hermes/store";
import pg from "pg";
import { startPostgres } from "../support/postgres-server.js";
import { percentile, QUICK, seededRandom, wordSource, type WordSource } from "./bench-words.js";
import type { BenchFigure } from "./gateway-bench.js";
import { searchLatencies } from "./store-bench-shared.js";

const USERS = 100;
const SESSIONS_PER_USER = 20;

/**
 * The corpus of the SQLite session_search benchmark (store-bench.ts), built by the server itself: 100 users × 20
 * sessions, messages of 6–40 words drawn Zipf-like (rank r with weight 1/r) from the same ranked vocabulary. Rows go in
 * in time order, each session's turns interleaved with everyone else's, the way a shared server fills up, so one
 * user's messages are spread over the whole table rather than stored side by side.
 */
export async function buildPostgresSearchCorpus(url: string, total: number, words: WordSource): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const sessions = USERS * SESSIONS_PER_USER;
    const perSession = Math.ceil(total / sessions);
    await client.query("SELECT setseed(0.11)");
    await client.query(
      `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, title, status, created_at, updated_at)
       SELECT 'session-' || s, 'agent:main:telegram:dm:' || (s % $1::int), 'telegram', (s % $1::int)::text, 'dm', (s % $1::int)::text,
              'session ' || s, CASE WHEN s < $1::int * ($2::int - 1) THEN 'ended' ELSE 'active' END, $3::bigint + s * 60000, $3::bigint + s * 60000
       FROM generate_series(0, $1::int * $2::int - 1) AS s`,
      [USERS, SESSIONS_PER_USER, Date.UTC(2026, 0, 1)],
    );
    // Rank r = floor(exp(u · ln(n + 1))) for uniform u has P(r) ∝ ln(1 + 1/r) ≈ 1/r: the Zipf draw of wordSource.
    // The `0 * (s + seq)` ties the word list to its row, so PostgreSQL draws a new one per message instead of once.
    await client.query(
      `INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at)
       SELECT 'session-' || s, seq, CASE WHEN seq % 2 = 0 THEN 'user' ELSE 'assistant' END,
              json_build_object('role', CASE WHEN seq % 2 = 0 THEN 'user' ELSE 'assistant' END, 'content', body.text, 'timestamp', 0)::text,
              body.text, length(body.text) / 4, $4::bigint + s * 60000 + seq
       FROM generate_series(0, $2::int - 1) AS seq, generate_series(0, $1::int - 1) AS s,
       LATERAL (
         SELECT string_agg(($3::text[])[floor(exp(random() * ln(cardinality($3::text[]) + 1)))::int], ' ') AS text
         FROM generate_series(1, 6 + floor(random() * 35)::int + 0 * (s + seq))
       ) AS body
       WHERE seq * $1::int + s < $5::int
       ORDER BY seq, s`,
      [sessions, perSession, words.words, Date.UTC(2026, 0, 1), total],
    );
    await client.query("VACUUM ANALYZE sessions");
    await client.query("VACUUM ANALYZE messages");
  } finally {
    await client.end();
  }
}

/**
 * `store.search` on PostgreSQL over the corpus above, with the SQLite benchmark's queries: one to three words, common
 * and rare, each for a random user. The server is a throw-away one of the test support (startPostgres).
 */
export async function postgresSessionSearchBenchmark(total = QUICK ? 100_000 : 1_000_000): Promise<BenchFigure[]> {
  const server = await startPostgres();
  try {
    const url = await server.createDatabase("search_bench");
    const random = seededRandom(11);
    const words = wordSource(random);
    // The store's migrations make the schema; the rows come after.
    const store = await openStore({ file: "", databaseUrl: url });
    try {
      const built = performance.now();
      await buildPostgresSearchCorpus(url, total, words);
      const buildSeconds = (performance.now() - built) / 1000;
      const { samples, hits } = await searchLatencies((query) => store.search(query), { queries: QUICK ? 50 : 100, users: USERS, words, random });
      if (hits === 0) throw new Error("PostgreSQL session search benchmark found nothing: the corpus or the queries are broken");
      const label = `${(total / 1_000_000).toLocaleString("en", { maximumFractionDigits: 1 })}M`;
      return [
        { name: `build ${label}-message corpus on PostgreSQL (SQL + GIN)`, value: buildSeconds, unit: "s" },
        { name: `session_search p50 over ${label} messages (PostgreSQL)`, value: percentile(samples, 0.5), unit: "ms" },
        { name: `session_search p95 over ${label} messages (PostgreSQL)`, value: percentile(samples, 0.95), unit: "ms", target: { max: 50 } },
      ];
    } finally {
      await store.close();
    }
  } finally {
    await server.stop();
  }
}
