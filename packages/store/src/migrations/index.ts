import type { Migration, MigrationProvider } from "kysely";
import { initialMigration } from "./0001-initial.js";
import { pairingMigration } from "./0002-pairing.js";
import { traceContextMigration } from "./0003-trace-context.js";
import { toolCheckpointsMigration } from "./0004-tool-checkpoints.js";
import { runStepsMigration } from "./0005-run-steps.js";
import { deliveryClaimsMigration } from "./0006-delivery-claims.js";
import { userDailyUsageMigration } from "./0007-user-daily-usage.js";
import { searchOwnerMigration } from "./0008-search-owner.js";
import { memoryDocumentsMigration } from "./0009-memory-documents.js";
import { sharedFilesMigration } from "./0010-shared-files.js";
import { streamingApprovalsMigration } from "./0012-streaming-approvals.js";
import { cronSubagentsMigration } from "./0013-cron-subagents.js";
import { deliverySessionsMigration } from "./0014-delivery-sessions.js";

/** Every schema version in order. Names sort in apply order; never rename or edit one that has shipped. */
const MIGRATIONS: ReadonlyArray<readonly [string, Migration]> = [
  ["0001_initial", initialMigration],
  ["0002_pairing", pairingMigration],
  ["0003_trace_context", traceContextMigration],
  ["0004_tool_checkpoints", toolCheckpointsMigration],
  ["0005_run_steps", runStepsMigration],
  ["0006_delivery_claims", deliveryClaimsMigration],
  ["0007_user_daily_usage", userDailyUsageMigration],
  ["0008_search_owner", searchOwnerMigration],
  ["0009_memory_documents", memoryDocumentsMigration],
  ["0010_shared_files", sharedFilesMigration],
  // 0011 is PostgreSQL's own 0011_search_folded (pg/migrations).
  ["0012_streaming_approvals", streamingApprovalsMigration],
  ["0013_cron_subagents", cronSubagentsMigration],
  ["0014_delivery_sessions", deliverySessionsMigration],
];

export function migrationNames(): string[] {
  return MIGRATIONS.map(([name]) => name);
}

/** In-code provider: migrations ship inside the bundle, so nothing depends on a folder layout at run time. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => Object.fromEntries(MIGRATIONS),
};
