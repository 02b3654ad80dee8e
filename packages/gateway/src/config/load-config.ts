import type { LogLevel } from "@hermes/agent";
import path from "node:path";
import { parseAllowlist } from "./allowlist.js";
import type { ConfigIssue } from "./errors.js";
import type { AllowedUsers, GatewayConfig, GatewayPaths, SearchSettings } from "./gateway-config.js";
import { readLimitSettings } from "./limit-settings.js";
import { readFallbackSettings, readModelSettings } from "./model-settings.js";
import { readDiscordSettings, readSlackSettings, readTelegramSettings } from "./platforms.js";
import { readRetentionSettings } from "./retention-settings.js";
import { SettingReader } from "./setting-reader.js";
import { readConfigSources } from "./sources.js";
import { parseToolList } from "./tool-list.js";
import { readInteractionSettings } from "./interaction-settings.js";
import { readSpeechToTextSettings } from "./voice-settings.js";
import { readSubagentMaxSteps } from "./subagent-settings.js";
import { readApiServerKey } from "./api-settings.js";

export type ConfigResult =
  | { ok: true; config: GatewayConfig; warnings: string[] }
  | { ok: false; errors: ConfigIssue[]; warnings: string[] };

export interface LoadConfigOptions {
  /** The process environment, passed in so tests never read the real one. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where `.env` is looked for and relative HERMES_HOME paths start. */
  readonly cwd: string;
  /** What `~` in HERMES_HOME stands for. */
  readonly homeDir: string;
  readonly knownTools: readonly string[];
  readonly defaultTools: readonly string[];
}

export const DEFAULT_HTTP_HOST = "127.0.0.1";
export const DEFAULT_HTTP_PORT = 8642;
export const DEFAULT_MAX_STEPS = 50;
export const DEFAULT_WORKERS = 4;
export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

const PORT_RANGE = { min: 0, max: 65_535 } as const;

/** Reads and validates the whole configuration, reporting every problem at once. */
export async function loadConfig(options: LoadConfigOptions): Promise<ConfigResult> {
  const sources = await readConfigSources(options);
  const reader = new SettingReader(sources.values);
  const read = readGatewayConfig(reader, sources.home, sources.providerKeys, options);
  const config = sources.mcpServers.length > 0 ? { ...read, mcpServers: sources.mcpServers } : read;
  const errors = [...sources.issues, ...reader.issues];
  const warnings = [...sources.warnings, ...reader.warnings];
  return errors.length === 0 ? { ok: true, config, warnings } : { ok: false, errors, warnings };
}

export function gatewayPaths(home: string): GatewayPaths {
  return {
    stateDb: path.join(home, "state.db"),
    memory: path.join(home, "memory"),
    skills: path.join(home, "skills"),
    hooks: path.join(home, "hooks"),
    workspace: path.join(home, "workspace"),
    logs: path.join(home, "logs"),
    sessions: path.join(home, "sessions"),
  };
}

function readGatewayConfig(
  reader: SettingReader,
  home: string,
  providerKeys: Readonly<Record<string, string>>,
  options: LoadConfigOptions,
): GatewayConfig {
  const model = readModelSettings(reader);
  const fallback = readFallbackSettings(reader);
  const tools = readTools(reader, options);
  const maxSteps = reader.integer("HERMES_MAX_STEPS", { min: 1, max: 1000 }) ?? DEFAULT_MAX_STEPS;
  const subagentMaxSteps = readSubagentMaxSteps(reader);
  const workers = reader.integer("HERMES_WORKERS", { min: 1, max: 64 }) ?? DEFAULT_WORKERS;
  const maxAttachmentMb = reader.integer("HERMES_MAX_ATTACHMENT_MB", { min: 1, max: 1024 });
  const speechToText = readSpeechToTextSettings(reader);
  const interaction = readInteractionSettings(reader, options.knownTools);
  const systemPrompt = reader.text("HERMES_SYSTEM_PROMPT");
  const http = {
    host: reader.text("HERMES_HTTP_HOST") ?? DEFAULT_HTTP_HOST,
    port: reader.integer("HERMES_HTTP_PORT", PORT_RANGE) ?? DEFAULT_HTTP_PORT,
  };
  const workerHttpPort = reader.integer("HERMES_WORKER_HTTP_PORT", PORT_RANGE);
  const metricsToken = readMetricsToken(reader);
  const apiServerKey = readApiServerKey(reader);
  const redisUrl = reader.url("REDIS_URL", ["redis:", "rediss:"]) ? reader.text("REDIS_URL") : undefined;
  const databaseUrl = reader.url("HERMES_DATABASE_URL", ["postgres:", "postgresql:"]) ? reader.text("HERMES_DATABASE_URL") : undefined;
  const allowedUsers = readAllowedUsers(reader);
  const telegram = readTelegramSettings(reader);
  const discord = readDiscordSettings(reader);
  const slack = readSlackSettings(reader);
  const search = readSearch(reader);
  const webAllowPrivate = reader.boolean("HERMES_WEB_ALLOW_PRIVATE") ?? false;
  const logLevel = reader.choice("HERMES_LOG_LEVEL", LOG_LEVELS) ?? "info";
  const sessionScope = {
    groupSessions: reader.choice("HERMES_GROUP_SESSIONS", ["per_user", "shared"] as const) ?? "per_user",
    threadSessions: reader.choice("HERMES_THREAD_SESSIONS", ["shared", "per_user"] as const) ?? "shared",
  };
  const memoryScope = reader.choice("HERMES_MEMORY_SCOPE", ["user", "chat", "shared"] as const) ?? "user";
  const botName = reader.text("HERMES_BOT_NAME");
  const retention = readRetentionSettings(reader);
  const limits = readLimitSettings(reader);
  const compressionThreshold = (reader.integer("HERMES_COMPRESSION_AT", { min: 10, max: 95 }) ?? 50) / 100;
  const reflection = {
    enabled: reader.boolean("HERMES_REFLECTION") ?? true,
    interval: reader.integer("HERMES_REFLECTION_INTERVAL", { min: 1, max: 1000 }) ?? 10,
  };

  return {
    home,
    paths: gatewayPaths(home),
    tools,
    maxSteps,
    subagentMaxSteps,
    workers,
    http,
    allowedUsers,
    webAllowPrivate,
    logLevel,
    providerKeys,
    sessionScope,
    memoryScope,
    reflection,
    compressionThreshold,
    retention,
    limits,
    interaction,
    ...(botName !== undefined && { botName }),
    ...(model && { model }),
    ...(fallback && { fallback }),
    ...(workerHttpPort !== undefined && { workerHttpPort }),
    ...(metricsToken !== undefined && { metricsToken }),
    ...(apiServerKey !== undefined && { apiServerKey }),
    ...(redisUrl !== undefined && { redisUrl }),
    ...(databaseUrl !== undefined && { databaseUrl }),
    ...(maxAttachmentMb !== undefined && { maxAttachmentBytes: maxAttachmentMb * 1024 * 1024 }),
    ...(speechToText && { speechToText }),
    ...(telegram && { telegram }),
    ...(discord && { discord }),
    ...(slack && { slack }),
    ...(search && { search }),
    ...(systemPrompt !== undefined && { systemPrompt }),
  };
}

/** A bearer token travels in one header word: visible ASCII without spaces. */
function readMetricsToken(reader: SettingReader): string | undefined {
  const token = reader.text("HERMES_METRICS_TOKEN");
  if (token === undefined || /^[\x21-\x7e]+$/.test(token)) return token;
  reader.reject("HERMES_METRICS_TOKEN", "must be printable ASCII without spaces (it is sent as `Authorization: Bearer <token>`)", { quoteValue: false });
  return undefined;
}

function readTools(reader: SettingReader, options: LoadConfigOptions): readonly string[] {
  const parsed = parseToolList(reader.text("HERMES_TOOLS"), options.knownTools, options.defaultTools);
  if (parsed.ok) return parsed.tools;
  reader.reject("HERMES_TOOLS", parsed.message, { quoteValue: false });
  return [...options.defaultTools];
}

function readAllowedUsers(reader: SettingReader): AllowedUsers {
  const parsed = parseAllowlist({
    HERMES_ALLOWED_USERS: reader.text("HERMES_ALLOWED_USERS"),
    TELEGRAM_ALLOWED_USERS: reader.text("TELEGRAM_ALLOWED_USERS"),
    DISCORD_ALLOWED_USERS: reader.text("DISCORD_ALLOWED_USERS"),
    SLACK_ALLOWED_USERS: reader.text("SLACK_ALLOWED_USERS"),
  });
  for (const { setting, problems } of parsed.rejections) {
    reader.reject(setting, `has invalid entries: ${problems.join("; ")}`, { quoteValue: false });
  }
  for (const warning of parsed.warnings) reader.warn(warning);
  return parsed.allowedUsers;
}

function readSearch(reader: SettingReader): SearchSettings | undefined {
  const url = reader.httpUrl("HERMES_SEARCH_URL");
  const apiKey = reader.text("BRAVE_API_KEY");
  if (url !== undefined) {
    if (apiKey !== undefined) {
      reader.warn("both HERMES_SEARCH_URL and BRAVE_API_KEY are set; web_search uses SearxNG at HERMES_SEARCH_URL");
    }
    return { kind: "searxng", url };
  }
  return apiKey === undefined ? undefined : { kind: "brave", apiKey };
}
