import { createApprovalRepository, type ApprovalRepository } from "./approvals.js";
import { retryingFunction, withBusyRetry, type BusyRetryPolicy } from "./busy-retry.js";
import { createChatSettingsRepository, type ChatSettingsRepository } from "./chat-settings.js";
import { createCompleteRun, type CompleteRun } from "./complete-run.js";
import { createCronJobRepository, type CronJobRepository } from "./cron-jobs.js";
import { createDeliveryRepository, type DeliveryRepository } from "./deliveries.js";
import { createInboundRepository, type InboundRepository } from "./inbound.js";
import { createMemoryDocumentRepository, type MemoryDocumentRepository } from "./memory-documents.js";
import { createMessageRepository, type MessageRepository } from "./messages.js";
import { createPairingRepository, type PairingRepository } from "./pairing.js";
import { createRetentionRepository, type RetentionRepository } from "./retention.js";
import { createSessionSearch, type SearchSessions } from "./search.js";
import { createSessionRepository, type SessionRepository } from "./sessions.js";
import { createSharedFileRepository, type SharedFileRepository } from "./shared-files.js";
import type { StoreContext } from "./store-context.js";
import { createStreamPartRepository, type StreamPartRepository } from "./stream-parts.js";
import { createSubagentRunRepository, type SubagentRunRepository } from "./subagent-runs.js";
import { createToolCheckpointRepository, type ToolCheckpointRepository } from "./tool-checkpoints.js";
import { createUsageRepository, type UsageRepository } from "./usage.js";
import type { WritableCheck } from "./writable-check.js";

/** Everything the gateway and the workers persist. Several stores (processes) may share one database file. */
export interface Store {
  sessions: SessionRepository;
  messages: MessageRepository;
  /** Full-text search over one user's past conversations. */
  search: SearchSessions;
  inbound: InboundRepository;
  deliveries: DeliveryRepository;
  usage: UsageRepository;
  pairing: PairingRepository;
  chatSettings: ChatSettingsRepository;
  /** Deletes finished records (and, when asked, old conversations) past their retention window. */
  retention: RetentionRepository;
  /** The finished tool calls of runs still open, replayed when a run is taken up again after a crash. */
  toolCheckpoints: ToolCheckpointRepository;
  /** Every memory scope's MEMORY.md and USER.md, when memory follows the database (HERMES_DATABASE_URL). */
  memoryDocuments: MemoryDocumentRepository;
  /** Files that follow the deployment, not one machine (agent-made skills, hook state, session files); see shared-files.ts. */
  sharedFiles: SharedFileRepository;
  /** The platform messages streamed replies occupy, so the final reply edits them (HERMES_STREAMING=edit). */
  streamParts: StreamPartRepository;
  /** Runs' requests to use a dangerous tool and their decisions (HERMES_APPROVAL). */
  approvals: ApprovalRepository;
  /** Prompts chats scheduled (the `cronjob` tool, `/cron`); the active gateway's scheduler takes their slots. */
  cronJobs: CronJobRepository;
  /** The sub-agents runs delegated to (`delegate_task`), by the session that delegated. */
  subagentRuns: SubagentRunRepository;
  /**
   * Atomically finishes a run: only while the inbound is still 'running' (or 'queued') it appends the messages, adds
   * the usage, enqueues the deliveries, drops the run's tool checkpoints and marks the inbound answered (or failed).
   * Otherwise it changes nothing.
   */
  completeRun: CompleteRun;
  /** Whether the database takes writes right now (for readiness); changes nothing. */
  checkWritable(): Promise<WritableCheck>;
  /** Closes the database; calling it again does nothing. */
  close(): Promise<void>;
}

/**
 * Every repository operation waits for another process's write lock asynchronously (see busy-retry.ts). Audit for the
 * retry: each operation here writes with one statement or one `exec.write` transaction, as its last step (plain reads
 * may come before it, e.g. claimNext's and a delivery claim's look for something to claim), so a failed attempt wrote
 * nothing; keep it so when adding one. The one exception is `retention.prune`, a transaction per batch: trying it again only
 * deletes what is left (its counts then leave out the batches of the failed attempt, which are deleted all the same).
 */
export function createStore(
  ctx: StoreContext,
  close: () => Promise<void>,
  checkWritable: () => Promise<WritableCheck>,
  busyRetry: BusyRetryPolicy,
): Store {
  const retrying = <T extends object>(repository: T): T => withBusyRetry(repository, busyRetry);
  return {
    sessions: retrying(createSessionRepository(ctx)),
    messages: retrying(createMessageRepository(ctx)),
    search: retryingFunction(createSessionSearch(ctx), busyRetry),
    inbound: retrying(createInboundRepository(ctx)),
    deliveries: retrying(createDeliveryRepository(ctx)),
    usage: retrying(createUsageRepository(ctx)),
    pairing: retrying(createPairingRepository(ctx)),
    chatSettings: retrying(createChatSettingsRepository(ctx)),
    retention: retrying(createRetentionRepository(ctx)),
    toolCheckpoints: retrying(createToolCheckpointRepository(ctx)),
    memoryDocuments: retrying(createMemoryDocumentRepository(ctx)),
    sharedFiles: retrying(createSharedFileRepository(ctx)),
    streamParts: retrying(createStreamPartRepository(ctx)),
    approvals: retrying(createApprovalRepository(ctx)),
    cronJobs: retrying(createCronJobRepository(ctx)),
    subagentRuns: retrying(createSubagentRunRepository(ctx)),
    completeRun: retryingFunction(createCompleteRun(ctx), busyRetry),
    checkWritable,
    close,
  };
}
