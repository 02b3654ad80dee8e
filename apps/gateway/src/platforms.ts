import path from "node:path";
import type { Logger, MetricsRegistry } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { createSlackAdapter } from "@hermes/slack";
import { createTelegramAdapter } from "@hermes/telegram";

export const NO_PLATFORM_HINT = [
  "No chat platform is configured, so the gateway only serves /healthz and /metrics. To connect one, set:",
  "  - Telegram: TELEGRAM_BOT_TOKEN (long polling; or TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET for a webhook)",
  "  - Discord:  DISCORD_BOT_TOKEN",
  "  - Slack:    SLACK_BOT_TOKEN plus SLACK_SIGNING_SECRET (HTTP events at POST /slack/events) or SLACK_APP_TOKEN (Socket Mode)",
  "Meanwhile `npm run chat` talks to the bot in this terminal.",
].join("\n");

const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

export interface PlatformDeps {
  logger: Logger;
  metrics: MetricsRegistry;
}

/** The platform adapters the configuration asks for. */
export function configuredAdapters(config: GatewayConfig, deps: PlatformDeps): PlatformAdapter[] {
  const adapters: PlatformAdapter[] = [];
  // Attachments land inside the workspace so the agent's file tools can open them.
  const attachmentsDir = (platform: string): string => path.join(config.paths.workspace, "attachments", platform);
  const refused = deps.metrics.counter("gateway.webhook_requests_refused", "Webhook requests refused (bad signature, stale timestamp), by platform and reason.");

  if (config.telegram) {
    adapters.push(
      createTelegramAdapter(config.telegram, {
        logger: deps.logger.child({ platform: "telegram" }),
        attachmentsDir: attachmentsDir("telegram"),
        maxAttachmentBytes: MAX_ATTACHMENT_BYTES,
        botName: config.botName,
      }),
    );
  }
  if (config.discord) {
    adapters.push(
      createDiscordAdapter(config.discord, {
        logger: deps.logger.child({ platform: "discord" }),
        attachmentsDir: attachmentsDir("discord"),
        maxAttachmentBytes: MAX_ATTACHMENT_BYTES,
        botName: config.botName,
      }),
    );
  }
  if (config.slack) {
    adapters.push(
      createSlackAdapter(config.slack, {
        logger: deps.logger.child({ platform: "slack" }),
        attachmentsDir: attachmentsDir("slack"),
        maxAttachmentBytes: MAX_ATTACHMENT_BYTES,
        botName: config.botName,
        onRequestRefused: (reason) => refused.inc(1, { platform: "slack", reason }),
      }),
    );
  }
  return adapters;
}
