import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import { estimateTokens, openStore, searchableText } from "@hermes/store";
import BetterSqlite3 from "better-sqlite3";
import { percentile, QUICK, seededRandom, wordSource, type WordSource } from "./bench-words.js";
import { compareAppends, searchLatencies } from "./store-bench-shared.js";
import type { BenchFigure } from "./gateway-bench.js";

const ZERO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** What one answered message with one tool call adds to a transcript: question, tool call, tool result, answer. */
export function runMessages(words: WordSource, turn: number): Message[] {
  const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]): AssistantMessage => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "bench",
    model: "bench",
    usage: ZERO_USAGE,
    stopReason,
    timestamp: turn,
  });
  return [
    { role: "user", content: words.sentence(14), timestamp: turn },
    assistant([{ type: "toolCall", id: `call_${turn}`, name: "web_search", arguments: { query: words.sentence(3) } }], "toolUse"),
    { role: "toolResult", toolCallId: `call_${turn}`, toolName: "web_search", content: [{ type: "text", text: words.sentence(60) }], isError: false, timestamp: turn },
    assistant([{ type: "text", text: words.sentence(40) }], "stop"),
  ];
}

const INSERT_MESSAGE = `INSERT INTO messages (session_id, seq, role, content, text, tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`;

/** A second database file with the store's own schema, written through better-sqlite3 with nothing in between. */
async function rawDatabase(file: string): Promise<BetterSqlite3.Database> {
  await (await openStore({ file })).close();
  const sqlite = new BetterSqlite3(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  return sqlite;
}

/**
 * `messages.append` (the same appendMessages a finished run writes through, in its own BEGIN IMMEDIATE transaction)
 * against prepared better-sqlite3 INSERTs of the same rows, one transaction per run, on identical schemas (FTS
 * triggers included). Batches alternate between the two so machine load hits both alike.
 */
export async function storeAppendBenchmark(): Promise<BenchFigure[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-append-"));
  const words = wordSource(seededRandom(7));
  const runs = QUICK ? 400 : 2_000;
  const batches = 10;
  const transcripts = Array.from({ length: runs }, (_, turn) => runMessages(words, turn));
  const store = await openStore({ file: path.join(dir, "store.db") });
  const raw = await rawDatabase(path.join(dir, "raw.db"));
  try {
    const session = (await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:1", platform: "telegram", chatId: "1", chatType: "dm", userId: "1" })).session;
    const now = Date.now();
    raw.prepare(`INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, status, created_at, updated_at) VALUES ('s', 'k', 'telegram', '1', 'dm', '1', 'active', ?, ?)`).run(now, now);
    const insert = raw.prepare(INSERT_MESSAGE);
    let rawSeq = 0;
    const rawAppend = raw.transaction((messages: readonly Message[]) => {
      const createdAt = Date.now();
      for (const message of messages) {
        insert.run("s", rawSeq++, message.role, JSON.stringify(message), searchableText(message), estimateTokens(message), createdAt);
      }
    });
    const { store: store_, raw: raw_ } = await compareAppends(
      transcripts,
      batches,
      (messages) => store.messages.append(session.id, messages),
      (messages) => rawAppend.immediate(messages),
    );
    // CPU time is the figure the target is judged on: on a shared machine wall time mostly measures the neighbours.
    return [
      { name: `store append, ${runs} runs × 4 messages (CPU)`, value: (store_.cpuMs * 1000) / runs, unit: "µs/run" },
      { name: "raw better-sqlite3, same rows (CPU)", value: (raw_.cpuMs * 1000) / runs, unit: "µs/run" },
      { name: "store append speed vs raw inserts (wall clock)", value: raw_.wallMs / store_.wallMs, unit: "×" },
      { name: "store append speed vs raw inserts (CPU time)", value: raw_.cpuMs / store_.cpuMs, unit: "×", target: { min: 0.7 } },
    ];
  } finally {
    raw.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const USERS = 100;
const SESSIONS_PER_USER = 20;

/** Writes the corpus described above into a new state database at `file` (schema by the store's migrations). */
export async function buildSearchCorpus(file: string, total: number, random: () => number, words: WordSource): Promise<void> {
  const raw = await rawDatabase(file);
  // Building the corpus is set-up, not the figure: no journal, no syncs, and the index is built once at the end
  // (the same FTS5 index the trigger would have filled row by row).
  raw.pragma("journal_mode = OFF");
  raw.pragma("synchronous = OFF");
  raw.pragma("cache_size = -200000");
  const insertTrigger = raw.prepare<[], string>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_fts_insert'").pluck().get();
  raw.exec("DROP TRIGGER messages_fts_insert");
  try {
    const perSession = Math.ceil(total / (USERS * SESSIONS_PER_USER));
    const insertSession = raw.prepare(
      `INSERT INTO sessions (id, key, platform, chat_id, chat_type, user_id, title, status, created_at, updated_at) VALUES (?, ?, 'telegram', ?, 'dm', ?, ?, ?, ?, ?)`,
    );
    const insertMessage = raw.prepare(INSERT_MESSAGE);
    const start = Date.UTC(2026, 0, 1);
    raw.transaction(() => {
      let written = 0;
      for (let s = 0; s < USERS * SESSIONS_PER_USER && written < total; s += 1) {
        const user = String(s % USERS);
        const id = `session-${s}`;
        const createdAt = start + s * 60_000;
        insertSession.run(id, `agent:main:telegram:dm:${user}`, user, user, words.sentence(3), s < USERS * (SESSIONS_PER_USER - 1) ? "ended" : "active", createdAt, createdAt);
        for (let seq = 0; seq < perSession && written < total; seq += 1, written += 1) {
          const role = seq % 2 === 0 ? "user" : "assistant";
          const text = words.sentence(6 + Math.floor(random() * 35));
          insertMessage.run(id, seq, role, JSON.stringify({ role, content: text, timestamp: createdAt }), text, Math.ceil(text.length / 4), createdAt + seq);
        }
      }
    }).immediate();
    raw.exec("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')");
    // The store's own trigger as its migrations left it, not a copy that could drift from it.
    if (insertTrigger !== undefined) raw.exec(insertTrigger);
    raw.pragma("journal_mode = WAL");
  } finally {
    raw.close();
  }
}

/**
 * `store.search` (what the session_search tool calls) over a corpus of `total` messages: 100 users × 20 sessions,
 * messages of 6–40 Zipf-distributed words, written with raw INSERTs in one transaction and indexed by one FTS5
 * rebuild (the same index the store's trigger keeps). Queries are one to three words, common and rare, each for a random user.
 */
export async function sessionSearchBenchmark(total = QUICK ? 100_000 : 1_000_000): Promise<BenchFigure[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-search-"));
  const file = path.join(dir, "state.db");
  const random = seededRandom(11);
  const words = wordSource(random);
  const built = performance.now();
  await buildSearchCorpus(file, total, random, words);
  const buildSeconds = (performance.now() - built) / 1000;
  const store = await openStore({ file });
  try {
    const { samples, hits } = await searchLatencies((query) => store.search(query), { queries: QUICK ? 50 : 100, users: USERS, words, random });
    if (hits === 0) throw new Error("session search benchmark found nothing: the corpus or the queries are broken");
    const label = `${(total / 1_000_000).toLocaleString("en", { maximumFractionDigits: 1 })}M`;
    return [
      { name: `build ${label}-message corpus (raw inserts + FTS)`, value: buildSeconds, unit: "s" },
      { name: `session_search p50 over ${label} messages`, value: percentile(samples, 0.5), unit: "ms" },
      { name: `session_search p95 over ${label} messages`, value: percentile(samples, 0.95), unit: "ms", target: { max: 50 } },
    ];
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
