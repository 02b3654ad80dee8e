import type { CustomApi, LogLevel, ModelInputKind, ModelPrice } from "@hermes/agent";

/** Where the gateway keeps its state, all under HERMES_HOME. */
export interface GatewayPaths {
  readonly stateDb: string;
  readonly memory: string;
  readonly skills: string;
  readonly hooks: string;
  readonly workspace: string;
  readonly logs: string;
  readonly sessions: string;
}

/** The model as the operator named it; provider names are resolved by the agent, not here. */
export interface ModelSettings {
  readonly model: string;
  readonly baseUrl?: string;
  /** Wire protocol of `baseUrl` (unset: openai-completions). */
  readonly api?: CustomApi;
  /** One key, or several comma-separated ones to rotate through. */
  readonly apiKey?: string;
  readonly contextWindow: number;
  /** HERMES_MODEL_PRICE: what the models at `baseUrl` cost (absent: free). */
  readonly price?: ModelPrice;
  /** HERMES_MODEL_INPUT: what the models at `baseUrl` take in (absent: text only). */
  readonly input?: readonly ModelInputKind[];
}

export interface FallbackModelSettings {
  readonly model: string;
  readonly baseUrl?: string;
  readonly api?: CustomApi;
  readonly apiKey?: string;
}

export interface AllowedUser {
  readonly platform: string;
  /** A platform user id, or "*" for everyone on that platform. */
  readonly userId: string;
}

export interface AllowedUsers {
  readonly everyone: boolean;
  readonly users: readonly AllowedUser[];
}

export interface TelegramWebhookSettings {
  readonly url: string;
  readonly secret: string;
}

export interface TelegramSettings {
  readonly token: string;
  /** Without a trailing slash. */
  readonly apiRoot: string;
  /** Absent: long polling. */
  readonly webhook?: TelegramWebhookSettings;
}

export interface DiscordSettings {
  readonly token: string;
  readonly apiUrl?: string;
}

/** HTTP events need the signing secret, Socket Mode the app token; at least one is present. */
export interface SlackSettings {
  readonly botToken: string;
  readonly signingSecret?: string;
  readonly appToken?: string;
  readonly apiUrl?: string;
}

export type SearchSettings =
  | { readonly kind: "searxng"; readonly url: string }
  | { readonly kind: "brave"; readonly apiKey: string };

export interface RetentionSettings {
  /** Finished operational records older than this are deleted. */
  readonly days: number;
  /** Absent: conversation history is kept. */
  readonly historyDays?: number;
}

/** Bounded intake and spend; an absent limit is off. */
export interface LimitSettings {
  /** HERMES_RATE_LIMIT: messages per user per minute that may start an agent run. */
  readonly ratePerMinute?: number;
  /** HERMES_MAX_QUEUED: unanswered messages per session beyond which new ones get no run. */
  readonly maxQueued?: number;
  /** HERMES_DAILY_BUDGET_USD: a user's spend per UTC day beyond which the model is not called. */
  readonly dailyBudgetUsd?: number;
}

/** HERMES_STT_*: where voice notes and audio files are transcribed. */
export interface SpeechToTextSettings {
  /** OpenAI-compatible API root without a trailing slash; `/audio/transcriptions` is appended. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
}

/** HERMES_STREAMING and HERMES_APPROVAL*: how a run talks back while it is under way. */
export interface InteractionSettings {
  readonly streaming: "off" | "edit";
  /** Tools whose calls wait for the approval of the person who asked (empty: none), and how long they wait. */
  readonly approval: { readonly tools: readonly string[]; readonly timeoutMs: number };
}

/** How the gateway reaches one MCP tool server (config.yaml `mcp_servers.<name>`). */
export type McpServerTransportSettings =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the child's environment; every value is a secret. */
      readonly env?: Readonly<Record<string, string>>;
      /** Absolute. */
      readonly cwd?: string;
    }
  | {
      /** Streamable HTTP, falling back to SSE. */
      readonly kind: "http";
      readonly url: string;
      /** Sent with every request; every value is a secret. */
      readonly headers?: Readonly<Record<string, string>>;
    };

export interface McpServerSettings {
  /** `[A-Za-z0-9_-]+`; its tools are `mcp_<name>_<tool>`. */
  readonly name: string;
  readonly transport: McpServerTransportSettings;
  /** Per call (and per connection attempt). */
  readonly timeoutS: number;
  readonly enabled: boolean;
}

export interface HttpListenSettings {
  readonly host: string;
  readonly port: number;
}

export interface GatewayConfig {
  /** Absolute. */
  readonly home: string;
  readonly paths: GatewayPaths;
  /** Absent when HERMES_MODEL is unset. */
  readonly model?: ModelSettings;
  readonly fallback?: FallbackModelSettings;
  readonly tools: readonly string[];
  readonly maxSteps: number;
  /** HERMES_SUBAGENT_MAX_STEPS: the step budget of each sub-agent delegate_task starts. */
  readonly subagentMaxSteps: number;
  readonly workers: number;
  readonly http: HttpListenSettings;
  readonly workerHttpPort?: number;
  /** HERMES_METRICS_TOKEN: the bearer token /metrics requires, when set. */
  readonly metricsToken?: string;
  /** HERMES_API_SERVER_KEY: when set, the OpenAI-compatible API at /v1 answers requests bearing it. */
  readonly apiServerKey?: string;
  readonly redisUrl?: string;
  /** HERMES_DATABASE_URL: the PostgreSQL store, used instead of `paths.stateDb` when set. */
  readonly databaseUrl?: string;
  /** HERMES_MAX_ATTACHMENT_MB in bytes, when set (the adapters' and the shared files' default is 20 MiB). */
  readonly maxAttachmentBytes?: number;
  /** HERMES_STT_BASE_URL and friends; absent: voice messages are not transcribed (the user is told). */
  readonly speechToText?: SpeechToTextSettings;
  readonly interaction: InteractionSettings;
  readonly allowedUsers: AllowedUsers;
  readonly telegram?: TelegramSettings;
  readonly discord?: DiscordSettings;
  readonly slack?: SlackSettings;
  readonly search?: SearchSettings;
  readonly webAllowPrivate: boolean;
  readonly logLevel: LogLevel;
  readonly systemPrompt?: string;
  /** How group and thread conversations map to sessions. */
  readonly sessionScope: { readonly groupSessions: "per_user" | "shared"; readonly threadSessions: "shared" | "per_user" };
  /** HERMES_MEMORY_SCOPE: whose memory files a conversation reads and writes. */
  readonly memoryScope: "user" | "chat" | "shared";
  readonly botName?: string;
  /** Background reflection (seed 000 §6): off, or a review every `interval` turns or tool iterations. */
  readonly reflection: { readonly enabled: boolean; readonly interval: number };
  /** Share of the context window (0–1) at which a conversation is compressed. */
  readonly compressionThreshold: number;
  /** HERMES_RETENTION_DAYS and HERMES_HISTORY_RETENTION_DAYS: what the daily pruning deletes. */
  readonly retention: RetentionSettings;
  /** HERMES_RATE_LIMIT, HERMES_MAX_QUEUED and HERMES_DAILY_BUDGET_USD. */
  readonly limits: LimitSettings;
  /** config.yaml `mcp_servers`, in file order (absent or empty: none). */
  readonly mcpServers?: readonly McpServerSettings[];
  /** Provider API keys by variable name, e.g. { ANTHROPIC_API_KEY: "…" }, from the environment, .env or config.yaml. */
  readonly providerKeys: Readonly<Record<string, string>>;
}
