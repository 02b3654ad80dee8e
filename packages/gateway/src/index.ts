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
  ModelSettings,
  SearchSettings,
  SlackSettings,
  TelegramSettings,
  TelegramWebhookSettings,
} from "./config/gateway-config.js";
export { createAgentFromConfig, NO_MODEL_MESSAGE, type AgentBuild, type AgentDeps } from "./agent/create-agent.js";
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
