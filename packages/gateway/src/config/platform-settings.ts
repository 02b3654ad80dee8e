import type { SettingInfo } from "./settings.js";

/** Who may talk to the bot, and each chat platform's connection: part of the SETTINGS list, in its place. */
export const PLATFORM_SETTINGS = [
  {
    name: "HERMES_ALLOWED_USERS",
    description: "Comma-separated `platform:userId` entries (telegram, discord, slack, console), or `*` for everyone",
    default: "",
    secret: false,
  },
  {
    name: "TELEGRAM_ALLOWED_USERS",
    description: "Comma-separated Telegram user ids, or `*` for every Telegram user",
    default: "",
    secret: false,
  },
  {
    name: "DISCORD_ALLOWED_USERS",
    description: "Comma-separated Discord user ids, or `*` for every Discord user",
    default: "",
    secret: false,
  },
  {
    name: "SLACK_ALLOWED_USERS",
    description: "Comma-separated Slack user ids, or `*` for every Slack user",
    default: "",
    secret: false,
  },
  {
    name: "TELEGRAM_BOT_TOKEN",
    description: "Telegram bot token from @BotFather; enables Telegram",
    default: "",
    secret: true,
  },
  {
    name: "TELEGRAM_API_ROOT",
    description: "Telegram Bot API root (a self-hosted Bot API server)",
    default: "https://api.telegram.org",
    secret: false,
  },
  {
    name: "TELEGRAM_WEBHOOK_URL",
    description: "Public https URL Telegram posts updates to (webhook mode instead of long polling)",
    default: "",
    secret: false,
  },
  {
    name: "TELEGRAM_WEBHOOK_SECRET",
    description: "Secret Telegram sends with each webhook call (1–256 of A–Z a–z 0–9 _ -)",
    default: "",
    secret: true,
  },
  {
    name: "DISCORD_BOT_TOKEN",
    description: "Discord bot token; enables Discord",
    default: "",
    secret: true,
  },
  {
    name: "DISCORD_API_URL",
    description: "Discord REST API base override (the gateway URL is discovered from it)",
    default: "",
    secret: false,
  },
  {
    name: "SLACK_BOT_TOKEN",
    description: "Slack bot token (xoxb-…); enables Slack",
    default: "",
    secret: true,
  },
  {
    name: "SLACK_SIGNING_SECRET",
    description: "Slack signing secret: receive events over HTTP at POST /slack/events",
    default: "",
    secret: true,
  },
  {
    name: "SLACK_APP_TOKEN",
    description: "Slack app-level token (xapp-…): receive events over Socket Mode",
    default: "",
    secret: true,
  },
  {
    name: "SLACK_API_URL",
    description: "Slack Web API base override",
    default: "",
    secret: false,
  },
] as const satisfies readonly SettingInfo[];
