export { loadConfig, gatewayPaths, type ConfigResult, type LoadConfigOptions } from "./config/load-config.js";
export { formatConfigIssues, type ConfigIssue } from "./config/errors.js";
export { configSecrets } from "./config/secrets.js";
export { SETTINGS, type SettingInfo, type SettingName } from "./config/settings.js";
export { ALLOWLIST_PLATFORMS } from "./config/allowlist.js";
export { DEFAULT_HERMES_HOME, resolveHermesHome } from "./config/sources.js";
export type {
  AllowedUser,
  AllowedUsers,
  DiscordSettings,
  FallbackModelSettings,
  GatewayConfig,
  GatewayPaths,
  HttpListenSettings,
  McpServerSettings,
  McpServerTransportSettings,
  ModelSettings,
  SearchSettings,
  SlackSettings,
  TelegramSettings,
  TelegramWebhookSettings,
} from "./config/gateway-config.js";
export { mcpServerConfig, startMcpTools, testMcpServer, type McpTools } from "./agent/mcp-wiring.js";
export { createAgentPool, NO_MODEL_MESSAGE, type AgentDeps, type AgentPool, type AgentPoolBuild } from "./agent/create-agent.js";
export { ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, SESSION_SEARCH_TOOL } from "./agent/tool-names.js";
export { createScopeManager, memoryStorageOf, sharedChatScopesOf, type PersonInChats } from "./agent/memory-scopes.js";
export { groupChatsOf, type PersonChatsStore } from "./agent/person-chats.js";
export { createGatewayLogger, type GatewayLoggerOptions } from "./logging/create-logger.js";
export { isAllowlisted, type AllowedUsersLike } from "./auth/allowlist.js";
export { authorize, type AuthorizationDecision, type AuthorizeDeps } from "./auth/authorize.js";
export {
  PairingService,
  type ApprovalResult,
  type PairingOutcome,
  type PairingOverview,
  type PairingServiceOptions,
  type PairingUser,
  type PendingPairing,
} from "./auth/pairing-service.js";
export { MemoryPairingStore } from "./auth/memory-pairing-store.js";
export type { ApprovedUserRecord, NewPairingRequest, PairingRequestRecord, PairingStoreLike } from "./auth/pairing-store.js";
export {
  APPROVAL_LOCKOUT_MS,
  MAX_FAILED_APPROVALS,
  MAX_PENDING_PER_PLATFORM,
  PAIRING_CODE_TTL_MS,
  PAIRING_REQUEST_INTERVAL_MS,
} from "./auth/pairing-rules.js";
export * from "./hooks/index.js";
export { bootstrap, onShutdownSignal, reportIssue, shutdownRequested, type Bootstrapped } from "./runtime/bootstrap.js";
export { openConfiguredStore, storeLabelOf, storeSettingOf } from "./runtime/open-configured-store.js";
export { startGatewayProcess, type GatewayProcess, type GatewayProcessOptions } from "./runtime/gateway-process.js";
export { API_PLATFORM } from "./api/api-adapter.js";
export { takeHomeLock, type HomeLock, type HomeLockHolder, type HomeLockResult } from "./runtime/home-lock.js";
export { connectGatewayLease, GATEWAY_LEASE_KEY, RedisGatewayLease, type GatewayLease, type GatewayLeaseHolder } from "./runtime/gateway-lease.js";
export { alwaysActive, leaseElection, type ActiveDuty, type GatewayElection, type GatewayRole } from "./runtime/gateway-election.js";
export { registerHealthRoutes, type HealthReport, type HealthRoutes } from "./runtime/health.js";
export { createBudgetRefusalsMetric, createStoreUpMetric } from "./runtime/gateway-metrics.js";
export { runReadinessChecks, storeCheck, type CheckResult, type ReadinessCheck, type ReadinessReport } from "./runtime/readiness.js";
export { RedisProbe } from "./runtime/redis-probe.js";
export { storeOutageCheck } from "./runtime/store-outage.js";
export { createWorkerHealth, type WorkerHealthEndpoints, type WorkerHealthOptions } from "./runtime/health-worker.js";
export { ConsoleAdapter, CONSOLE_CHAT_ID, type ConsoleAdapterOptions } from "./console/console-adapter.js";
export { GatewayHttpServer, type HttpServerOptions } from "./http/http-server.js";
export { listenIssue } from "./http/listen-issue.js";
export { Gateway, type GatewayOptions, type AuthorizationResult } from "./core/gateway.js";
export { approvalGateFor } from "./approval/approval-wiring.js";
export { createRunProcessor, type RunProcessorOptions } from "./core/run-processor.js";
export { sessionKeyFor, isSharedSession, DEFAULT_SESSION_SCOPE, type SessionScopeSettings } from "./core/session-key.js";
export { parseCommand, type ParsedCommand } from "./core/command.js";
export { COMMANDS, helpText } from "./commands/registry.js";
export type { InboundMessage, InboundAttachment, ChatType } from "./core/inbound.js";
export type { PlatformAdapter, AdapterContext, AdapterState, AdapterStatus, OutboundTarget, OutboundMessage, OutboundButton, SendResult, HttpHandler, HttpRequestInfo, PacingRules, RateLimit } from "./core/adapter.js";
export { chunkMarkdown } from "./outbound/chunk-markdown.js";
export { DeliveryService, type DeliveryServiceOptions } from "./outbound/delivery-service.js";
export { TypingTracker } from "./outbound/typing-tracker.js";
export { PlatformPacer, type PlatformPacerOptions } from "./outbound/pacer.js";
export { realPacerClock, type PacerClock } from "./outbound/pacer-clock.js";
export { UNPACED, type SendPacer } from "./outbound/pacer-types.js";
export { abortableSleep, cappedBackoffMs, type AbortableSleep, type BackoffJitter, type BackoffSchedule } from "./retry/retry-timing.js";
export * from "./queue/index.js";
export * from "./streaming/index.js";
export type { GatewayEvent, HookOutcome, HookPort, GatewayStore, RunQueuePort, DeliveryPort, TypingPort } from "./core/ports.js";
export { resolveModelName } from "./agent/model-names.js";
export { sharedFilesFor, SHARED_FILES_POLL_MS, type SharedFiles } from "./shared-files/shared-files-wiring.js";
export { SharedFilesSync, HOOK_STATE_PATH, MIRRORED_PREFIXES, SKILLS_FOLDER, type PullOutcome, type SharedFilesSyncOptions } from "./shared-files/shared-files-sync.js";
export { checkHomeFilesShareable, shareHomeFiles, type ShareHomeFilesResult } from "./shared-files/share-home-files.js";
export * from "./setup/index.js";
export { inlinePlainText, tableText } from "./outbound/markdown-plain.js";
