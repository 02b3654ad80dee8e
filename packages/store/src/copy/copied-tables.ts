import type { Database } from "../database.js";

/** A table of the schema both dialects share, as `hermes db copy` moves it from SQLite to PostgreSQL. */
export interface CopiedTable {
  readonly name: keyof Database & string;
  /**
   * Columns pointing at rows of the same table (a compacted session's parent): inserted as null and set once every
   * row is in, so the rows may come in any order.
   */
  readonly selfReferences?: readonly string[];
  /**
   * Columns numbered by a PostgreSQL sequence of their own (not an identity column), column → sequence: moved past
   * the highest copied value like the identity columns, so the next number taken is new.
   */
  readonly sequences?: Readonly<Record<string, string>>;
}

/**
 * Every table of the shared schema, each after the tables its foreign keys point at. A table added to the schema is
 * added here, or to SQLITE_ONLY_TABLES when PostgreSQL does its job differently; copied-tables.test.ts fails until
 * one of the two names it.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: "sessions", selfReferences: ["parent_id"] },
  { name: "messages" },
  { name: "usage" },
  { name: "inbound" },
  { name: "deliveries" },
  { name: "tool_checkpoints" },
  { name: "run_steps" },
  { name: "stream_parts" },
  { name: "approvals" },
  { name: "cron_jobs" },
  { name: "subagent_runs" },
  { name: "pairing_requests" },
  { name: "approved_users" },
  { name: "pairing_failures" },
  { name: "chat_settings" },
  { name: "user_daily_usage" },
  { name: "shared_files", sequences: { version: "shared_files_version" } },
  // Empty on an install that keeps memory in files (without HERMES_DATABASE_URL), as SQLite installs do.
  { name: "memory_documents" },
];

/** FTS5 keeps an index in these tables next to the virtual table itself. */
const FTS5_SHADOW_SUFFIXES = ["data", "idx", "docsize", "config", "content"] as const;

function fts5Tables(name: string): string[] {
  return [name, ...FTS5_SHADOW_SUFFIXES.map((suffix) => `${name}_${suffix}`)];
}

/**
 * Tables only SQLite has: its own bookkeeping, the migrator's (each database keeps its own migration history), and
 * the FTS5 index, which PostgreSQL replaces with the generated `messages.text_search`.
 */
export const SQLITE_ONLY_TABLES: ReadonlySet<string> = new Set(["sqlite_sequence", "sqlite_stat1", "sqlite_stat4", "kysely_migration", "kysely_migration_lock", ...fts5Tables("messages_fts")]);
