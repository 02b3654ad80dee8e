import { LIMIT_SETTINGS } from "./limit-settings.js";
import { PLATFORM_SETTINGS } from "./platform-settings.js";
import { INTERACTION_SETTINGS } from "./interaction-settings.js";
import { VOICE_SETTINGS } from "./voice-settings.js";
import { SUBAGENT_SETTINGS } from "./subagent-settings.js";
import { API_SETTINGS } from "./api-settings.js";

/** One operator-facing setting: the README table and `hermes doctor` are rendered from this list. */
export interface SettingInfo {
  readonly name: string;
  readonly description: string;
  /** Shown as-is; an empty string means "unset by default". */
  readonly default: string;
  /** A secret's value is never printed and is masked in logs. */
  readonly secret: boolean;
}

export const SETTINGS = [
  {
    name: "HERMES_HOME",
    description: "State folder (state.db, memory/, skills/, hooks/, workspace/, logs/, config.yaml); environment or .env only",
    default: "~/.hermes-gateway",
    secret: false,
  },
  {
    name: "HERMES_MODEL",
    description: "`provider/model-id` of a pi-ai model, or a model id served at HERMES_BASE_URL",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_BASE_URL",
    description: "Custom endpoint (Ollama, vLLM, LM Studio, a proxy, …) serving HERMES_MODEL; its protocol is HERMES_API",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_API",
    description: "Wire protocol of HERMES_BASE_URL: openai-completions, openai-responses or anthropic-messages",
    default: "openai-completions",
    secret: false,
  },
  {
    name: "HERMES_API_KEY",
    description: "API key for the model provider or HERMES_BASE_URL; several comma-separated keys are tried in turn when one is rejected or out of quota",
    default: "",
    secret: true,
  },
  {
    name: "HERMES_CONTEXT_WINDOW",
    description: "Context window in tokens of a custom endpoint model (at least 1024)",
    default: "128000",
    secret: false,
  },
  {
    name: "HERMES_MODEL_INPUT",
    description: "What a custom endpoint model takes in: `text`, or `text,image` for a model that sees images (a catalogue model knows its own)",
    default: "text",
    secret: false,
  },
  {
    name: "HERMES_FALLBACK_MODEL",
    description: "Model to switch to when the primary model keeps failing",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_FALLBACK_BASE_URL",
    description: "Custom endpoint serving HERMES_FALLBACK_MODEL; its protocol is HERMES_FALLBACK_API",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_FALLBACK_API",
    description: "Wire protocol of HERMES_FALLBACK_BASE_URL: openai-completions, openai-responses or anthropic-messages",
    default: "openai-completions",
    secret: false,
  },
  {
    name: "HERMES_FALLBACK_API_KEY",
    description: "API key for the fallback model (several comma-separated keys work as for HERMES_API_KEY)",
    default: "",
    secret: true,
  },
  {
    name: "HERMES_TOOLS",
    description: "Comma-separated tool names to enable; `default` stands for the safe set",
    default: "default",
    secret: false,
  },
  {
    name: "HERMES_MAX_STEPS",
    description: "Most model calls in one agent run (1–1000)",
    default: "50",
    secret: false,
  },
  ...SUBAGENT_SETTINGS,
  {
    name: "HERMES_WORKERS",
    description: "Concurrent agent runs per process (1–64)",
    default: "4",
    secret: false,
  },
  {
    name: "HERMES_MAX_ATTACHMENT_MB",
    description: "Largest inbound attachment kept, in MB (1–1024); a larger one is refused and the bot says so",
    default: "20",
    secret: false,
  },
  ...VOICE_SETTINGS,
  ...INTERACTION_SETTINGS,
  ...LIMIT_SETTINGS,
  {
    name: "HERMES_SYSTEM_PROMPT",
    description: "Extra operator instructions added to the system prompt",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_HTTP_HOST",
    description: "Address the gateway HTTP server listens on (/healthz, /readyz, /metrics, webhooks)",
    default: "127.0.0.1",
    secret: false,
  },
  {
    name: "HERMES_HTTP_PORT",
    description: "Port of the gateway HTTP server (0 picks a free one)",
    default: "8642",
    secret: false,
  },
  {
    name: "HERMES_WORKER_HTTP_PORT",
    description: "When set, a worker serves its own /healthz, /readyz and /metrics on this port",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_METRICS_TOKEN",
    description: "When set, /metrics (gateway and workers) needs `Authorization: Bearer <token>`",
    default: "",
    secret: true,
  },
  ...API_SETTINGS,
  {
    name: "REDIS_URL",
    description: "redis:// or rediss:// URL; when set, agent runs go through BullMQ and only workers execute them",
    default: "",
    secret: true,
  },
  {
    name: "HERMES_DATABASE_URL",
    description:
      "postgres:// or postgresql:// URL; when set, all state (sessions, memory, agent-made skills, hook choices, attachments) lives in that PostgreSQL database instead of $HERMES_HOME/state.db, so processes on different machines share it",
    default: "",
    secret: true,
  },
  ...PLATFORM_SETTINGS,
  {
    name: "HERMES_SEARCH_URL",
    description: "SearxNG instance used by web_search (wins over BRAVE_API_KEY)",
    default: "",
    secret: false,
  },
  {
    name: "BRAVE_API_KEY",
    description: "Brave Search API key used by web_search",
    default: "",
    secret: true,
  },
  {
    name: "HERMES_WEB_ALLOW_PRIVATE",
    description: "Let web_fetch reach loopback and private networks",
    default: "false",
    secret: false,
  },
  {
    name: "HERMES_LOG_LEVEL",
    description: "Log level: debug, info, warn or error",
    default: "info",
    secret: false,
  },
  {
    name: "HERMES_GROUP_SESSIONS",
    description: "Group chats outside threads: per_user (each person has their own session) or shared",
    default: "per_user",
    secret: false,
  },
  {
    name: "HERMES_MEMORY_SCOPE",
    description: "Whose MEMORY.md/USER.md a conversation uses: user (each person their own), chat (one pair per chat) or shared (one pair for everyone)",
    default: "user",
    secret: false,
  },
  {
    name: "HERMES_THREAD_SESSIONS",
    description: "Threads and forum topics: shared (one session, messages prefixed with the sender) or per_user",
    default: "shared",
    secret: false,
  },
  {
    name: "HERMES_COMPRESSION_AT",
    description: "Compress a conversation when it fills this percentage of the model's context window",
    default: "50",
    secret: false,
  },
  {
    name: "HERMES_REFLECTION",
    description: "Background self-review every N turns or tool iterations: on or off",
    default: "on",
    secret: false,
  },
  {
    name: "HERMES_REFLECTION_INTERVAL",
    description: "Turns (and tool iterations) between background reviews",
    default: "10",
    secret: false,
  },
  {
    name: "HERMES_BOT_NAME",
    description: "The bot's username, for recognising /command@botname and @mentions where the platform does not say",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_RETENTION_DAYS",
    description: "Days finished inbound messages, delivered replies and finished pairing requests are kept (pruned daily)",
    default: "30",
    secret: false,
  },
  {
    name: "HERMES_HISTORY_RETENTION_DAYS",
    description: "When set, conversations not updated for this many days are deleted with their messages; kept forever otherwise",
    default: "",
    secret: false,
  },
] as const satisfies readonly SettingInfo[];

export type SettingName = (typeof SETTINGS)[number]["name"];

const SETTING_NAMES: ReadonlySet<string> = new Set(SETTINGS.map((setting) => setting.name));
const SECRET_NAMES: ReadonlySet<string> = new Set(
  SETTINGS.filter((setting) => setting.secret).map((setting) => setting.name),
);

export function isSettingName(name: string): name is SettingName {
  return SETTING_NAMES.has(name);
}

export function isSecretSetting(name: string): boolean {
  return SECRET_NAMES.has(name);
}
