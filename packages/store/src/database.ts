import type { Generated } from "kysely";

/** Row shapes of the SQLite schema (snake_case, as stored). Records in types.ts are the camelCase view of these. */
export interface Database {
  sessions: SessionsTable;
  messages: MessagesTable;
  messages_fts: MessagesFtsTable;
  inbound: InboundTable;
  deliveries: DeliveriesTable;
  usage: UsageTable;
  pairing_requests: PairingRequestsTable;
  approved_users: ApprovedUsersTable;
  pairing_failures: PairingFailuresTable;
  chat_settings: ChatSettingsTable;
  tool_checkpoints: ToolCheckpointsTable;
  run_steps: RunStepsTable;
  user_daily_usage: UserDailyUsageTable;
  memory_documents: MemoryDocumentsTable;
  shared_files: SharedFilesTable;
  stream_parts: StreamPartsTable;
  approvals: ApprovalsTable;
  cron_jobs: CronJobsTable;
  subagent_runs: SubagentRunsTable;
}

export interface SessionsTable {
  id: string;
  key: string;
  platform: string;
  chat_id: string;
  chat_type: string;
  thread_id: string | null;
  user_id: string | null;
  title: string | null;
  status: string;
  parent_id: string | null;
  model: string | null;
  created_at: number;
  updated_at: number;
}

export interface MessagesTable {
  /** Rowid alias: the stable key the external-content FTS index points at. */
  id: Generated<number>;
  session_id: string;
  seq: number;
  role: string;
  /** JSON of the pi-ai Message. */
  content: string;
  /** Plain text for full-text search. */
  text: string;
  tokens: number;
  created_at: number;
}

export interface MessagesFtsTable {
  rowid: number;
  text: string;
  /** The session's (platform, user id) as one token, null without a user (migration 0008; see searchOwnerToken). */
  owner: string | null;
  /** The hidden column named like the table; the target of MATCH and the argument of snippet(). */
  messages_fts: string;
  rank: number;
}

export interface InboundTable {
  id: Generated<number>;
  platform: string;
  message_id: string;
  session_key: string | null;
  status: string;
  payload: string;
  received_at: number;
  updated_at: number;
  /** W3C trace context of the span that received the message (migration 0003). */
  traceparent: string | null;
  tracestate: string | null;
}

export interface DeliveriesTable {
  id: Generated<number>;
  inbound_id: number | null;
  session_key: string | null;
  platform: string;
  chat_id: string;
  thread_id: string | null;
  reply_to_message_id: string | null;
  text: string;
  kind: string;
  status: string;
  attempts: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** The process sending it now, until `claim_expires_at` (ms); null when nobody does. */
  claim_owner: string | null;
  claim_expires_at: number | null;
  /** Parts of a multi-part reply already sent. */
  parts_sent: Generated<number>;
  /** Not sent before this time (ms); null: due now. */
  next_attempt_at: number | null;
  /** JSON array of DeliveryButton (migration 0012); null: no buttons. */
  buttons: string | null;
}

export interface UsageTable {
  session_id: string;
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number;
  updated_at: number;
}

export interface PairingRequestsTable {
  id: Generated<number>;
  platform: string;
  user_id: string;
  user_name: string | null;
  chat_id: string;
  code_hash: string;
  salt: string;
  created_at: number;
  expires_at: number;
}

export interface ApprovedUsersTable {
  platform: string;
  user_id: string;
  user_name: string | null;
  approved_at: number;
}

export interface PairingFailuresTable {
  id: Generated<number>;
  platform: string;
  at: number;
}

export interface ChatSettingsTable {
  platform: string;
  chat_id: string;
  mention_mode: string;
  updated_at: number;
}

/** Migration 0004: the finished tool calls of runs not completed yet. */
export interface ToolCheckpointsTable {
  id: Generated<number>;
  inbound_id: number;
  step: number;
  position: number;
  tool_call_id: string;
  tool_name: string;
  arguments_hash: string;
  status: string;
  result: string;
  duration_ms: number;
  created_at: number;
}

/** Migration 0005: the model replies of the steps of runs not completed yet. */
export interface RunStepsTable {
  id: Generated<number>;
  inbound_id: number;
  step: number;
  message: string;
  created_at: number;
}

/** Migration 0007: each user's cost per UTC day (HERMES_DAILY_BUDGET_USD). */
export interface UserDailyUsageTable {
  platform: string;
  user_id: string;
  /** YYYY-MM-DD in UTC. */
  day: string;
  cost_usd: number;
  runs: number;
  /** Input, output and cache tokens together. */
  tokens: number;
  updated_at: number;
}

/** Migration 0010: files that follow the deployment rather than one machine's HERMES_HOME (shared-files.ts). */
export interface SharedFilesTable {
  path: string;
  content: Buffer;
  sha256: string;
  size: number;
  version: number;
  deleted: Generated<number>;
  session_key: string | null;
  updated_at: number;
}

/** Migration 0009: MEMORY.md and USER.md of each scope when memory follows the database (memory-documents.ts). */
export interface MemoryDocumentsTable {
  /** The file's path below the memory root, `/`-separated. */
  key: string;
  text: string;
  version: number;
  updated_at: number;
}

/** Migration 0012: the platform messages a streamed reply occupies, by 0-based part (stream-parts.ts). */
export interface StreamPartsTable {
  inbound_id: number;
  part: number;
  message_id: string;
  created_at: number;
}

/** Migration 0012: requests to use a dangerous tool and their decisions (approvals.ts). */
export interface ApprovalsTable {
  id: string;
  inbound_id: number;
  session_key: string;
  session_id: string;
  platform: string;
  chat_id: string;
  thread_id: string | null;
  requester_id: string;
  tool: string;
  summary: string;
  status: string;
  scope: string | null;
  decided_by: string | null;
  decided_at: number | null;
  created_at: number;
  expires_at: number;
}

/** Migration 0013: scheduled prompts of chats (cron-jobs.ts). */
export interface CronJobsTable {
  id: string;
  platform: string;
  chat_id: string;
  chat_type: string;
  thread_id: string | null;
  creator_id: string;
  session_key: string;
  schedule: string;
  kind: string;
  prompt: string;
  /** The next slot (ms); null once a one-shot is done or missed. */
  next_run_at: number | null;
  last_run_at: number | null;
  last_status: string | null;
  runs: Generated<number>;
  created_at: number;
}

/** Migration 0013: one row per sub-agent a run delegated to (subagent-runs.ts). */
export interface SubagentRunsTable {
  id: string;
  parent_session_id: string;
  parent_tool_call_id: string;
  goal: string;
  status: string;
  summary: string;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  started_at: number;
  ended_at: number;
}
