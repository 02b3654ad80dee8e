import type { Migration, MigrationProvider } from "kysely";
import { initialPostgresMigration } from "./0001-initial.js";
import { memoryDocumentsPostgresMigration } from "./0009-memory-documents.js";
import { sharedFilesPostgresMigration } from "./0010-shared-files.js";
import { searchFoldedMigration } from "./0011-search-folded.js";
import { streamingApprovalsPostgresMigration } from "./0012-streaming-approvals.js";
import { cronSubagentsPostgresMigration } from "./0013-cron-subagents.js";
import { deliverySessionsPostgresMigration } from "./0014-delivery-sessions.js";

/**
 * Every PostgreSQL schema version in order. Names sort in apply order; never rename or edit one that has shipped. A
 * schema change after this one gets the same number and name here as in ../../migrations/index.ts (SQLite).
 */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ["0001_initial", initialPostgresMigration],
  ["0009_memory_documents", memoryDocumentsPostgresMigration],
  ["0010_shared_files", sharedFilesPostgresMigration],
  // PostgreSQL only (SQLite's FTS5 tokenizer folds case and accents itself).
  ["0011_search_folded", searchFoldedMigration],
  ["0012_streaming_approvals", streamingApprovalsPostgresMigration],
  ["0013_cron_subagents", cronSubagentsPostgresMigration],
  ["0014_delivery_sessions", deliverySessionsPostgresMigration],
];

export function postgresMigrationNames(): string[] {
  return MIGRATIONS.map(([name]) => name);
}

/** In-code provider: migrations ship inside the bundle, so nothing depends on a folder layout at run time. */
export const postgresMigrationProvider: MigrationProvider = {
  getMigrations: async () => Object.fromEntries(MIGRATIONS),
};
