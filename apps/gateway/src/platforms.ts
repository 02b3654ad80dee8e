import path from "node:path";
import type { Logger, MetricsRegistry } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";

export const NO_PLATFORM_HINT = [
  "No chat platform is configured, so the gateway only serves /healthz, /readyz and /metrics. To connect one, set:",
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

/**
 * The platform adapters the configuration asks for. Each platform's package (and its client library) is imported only
 * when that platform is configured, so start-up does not pay for discord.js or Bolt when they are not used.
 */
export async function configuredAdapters(config: GatewayConfig, deps: PlatformDeps): Promise<PlatformAdapter[]> {
  const adapters: PlatformAdapter[] = [];
  const common = (platform: string) => ({
    logger: deps.logger.child({ platform }),
    // Attachments land inside the workspace so the agent's file tools can open them.
    attachmentsDir: path.join(config.paths.workspace, "attachments", platform),
    maxAttachmentBytes: config.maxAttachmentBytes ?? MAX_ATTACHMENT_BYTES,
    botName: config.botName,
  });
  const refused = deps.metrics.counter("gateway.webhook_requests_refused", "Webhook requests refused (bad signature, stale timestamp), by platform and reason.", ["platform", "reason"]);

  if (config.telegram) {
    const { createTelegramAdapter } = await import("@hermes/telegram");
    adapters.push(createTelegramAdapter(config.telegram, common("telegram")));
  }
  if (config.discord) {
    const { createDiscordAdapter } = await import("@hermes/discord");
    adapters.push(createDiscordAdapter(config.discord, common("discord")));
  }
  if (config.slack) {
    const { createSlackAdapter } = await import("@hermes/slack");
    const onRequestRefused = (reason: string): void => refused.inc(1, { platform: "slack", reason });
    adapters.push(createSlackAdapter(config.slack, { ...common("slack"), onRequestRefused }));
  }
  return adapters;
}
