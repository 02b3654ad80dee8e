import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";

export const NO_PLATFORM_HINT = [
  "No chat platform is configured, so the gateway only serves /healthz and /metrics. To connect one, set:",
  "  - Telegram: TELEGRAM_BOT_TOKEN (long polling; or TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET for a webhook)",
  "  - Discord:  DISCORD_BOT_TOKEN",
  "  - Slack:    SLACK_BOT_TOKEN plus SLACK_SIGNING_SECRET (HTTP events at POST /slack/events) or SLACK_APP_TOKEN (Socket Mode)",
  "Meanwhile `npm run chat` talks to the bot in this terminal.",
].join("\n");

/**
 * The platform adapters the configuration asks for. Adapters live in their own packages and are added here as they
 * land; a configured platform without an adapter yet is reported rather than silently ignored.
 */
export function configuredAdapters(config: GatewayConfig): { adapters: PlatformAdapter[]; unavailable: string[] } {
  const unavailable: string[] = [];
  if (config.telegram) unavailable.push("telegram");
  if (config.discord) unavailable.push("discord");
  if (config.slack) unavailable.push("slack");
  return { adapters: [], unavailable };
}
