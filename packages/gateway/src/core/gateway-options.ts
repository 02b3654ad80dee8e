import type { Logger } from "@hermes/agent";
import type { CommandContext } from "../commands/types.js";
import type { OutboundMessage, OutboundTarget } from "./adapter.js";
import type { VoiceMessages } from "../media/voice-messages.js";
import type { InboundMessage } from "./inbound.js";
import type { IntakeLimitOptions, IntakeRefusal } from "./intake-limits.js";
import type { DeliveryPort, GatewayStore, HookPort, RunQueuePort, TypingPort } from "./ports.js";
import type { SessionScopeSettings } from "./session-key.js";

export type AuthorizationResult =
  | { kind: "allowed"; via: "allowlist" | "paired" | "console" }
  | { kind: "pairing"; reply: string }
  | { kind: "ignored"; reason: string };

export interface GatewayOptions {
  store: GatewayStore;
  queue: RunQueuePort;
  hooks: HookPort;
  delivery: DeliveryPort;
  typing: TypingPort;
  authorize: (message: InboundMessage) => Promise<AuthorizationResult>;
  sessionScope: SessionScopeSettings;
  /** The bot's username per platform, for `/cmd@botname`. */
  botName: (platform: string) => string | undefined;
  models: CommandContext["models"];
  checkModel: CommandContext["checkModel"];
  compress: CommandContext["compress"];
  /** The runs' session lock for /undo, /retry and /compress; without one (tests), commands lock only among themselves. */
  withSessionLock?: CommandContext["withSessionLock"];
  /** The memory scopes, for /memory and /forget. */
  memory?: CommandContext["memory"];
  /** The approval requests (HERMES_APPROVAL), for /approve and /deny. */
  approvals?: CommandContext["approvals"];
  /** Edits a message the bot sent (through the platform's pacing); false when the platform cannot or refused. */
  editMessage?: (platform: string, target: OutboundTarget, messageId: string, message: OutboundMessage) => Promise<boolean>;
  /** Transcribes voice notes and audio files (or says voice is not enabled) before a run is queued. */
  voice?: VoiceMessages;
  /** Called for each new (not duplicate) message, e.g. to count it. */
  onAccepted?: (message: InboundMessage) => void;
  /** Called for each message the bounded intake starts no run for (HERMES_RATE_LIMIT, HERMES_MAX_QUEUED), e.g. to count it. */
  onIntakeRefused?: (message: InboundMessage, reason: IntakeRefusal) => void;
  /** Tells the message's adapter it was handled without an agent run (e.g. to remove a "working on it" reaction). */
  markDone?: (message: InboundMessage) => void;
  /** HERMES_RATE_LIMIT and HERMES_MAX_QUEUED (absent: no limits), and HERMES_DAILY_BUDGET_USD for /usage. */
  limits?: Pick<IntakeLimitOptions, "ratePerMinute" | "maxQueued"> & { dailyBudgetUsd?: number };
  logger: Logger;
  now?: () => number;
}

