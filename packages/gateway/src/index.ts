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
