import { definedOnly } from "./defined-only.js";
import type { DiscordSettings, SlackSettings, TelegramSettings, TelegramWebhookSettings } from "./gateway-config.js";
import type { SettingReader } from "./setting-reader.js";
import type { SettingName } from "./settings.js";

export const DEFAULT_TELEGRAM_API_ROOT = "https://api.telegram.org";

// Telegram's own rule for secret_token in setWebhook.
const WEBHOOK_SECRET_PATTERN = /^[A-Za-z0-9_-]{1,256}$/;
const WEBHOOK_SECRET_RULE = "1–256 characters of A–Z, a–z, 0–9, _ and -";

export function readTelegramSettings(reader: SettingReader): TelegramSettings | undefined {
  const token = reader.text("TELEGRAM_BOT_TOKEN");
  const apiRoot = reader.httpUrl("TELEGRAM_API_ROOT") ?? DEFAULT_TELEGRAM_API_ROOT;
  const webhook = readTelegramWebhook(reader);
  if (token === undefined) {
    requireToken(reader, "TELEGRAM_BOT_TOKEN", ["TELEGRAM_WEBHOOK_URL", "TELEGRAM_WEBHOOK_SECRET"]);
    ignoredWithoutToken(reader, "TELEGRAM_BOT_TOKEN", ["TELEGRAM_API_ROOT"]);
    return undefined;
  }
  return definedOnly({ token, apiRoot: apiRoot.replace(/\/+$/, ""), webhook });
}

function readTelegramWebhook(reader: SettingReader): TelegramWebhookSettings | undefined {
  const url = reader.url("TELEGRAM_WEBHOOK_URL");
  const secret = reader.text("TELEGRAM_WEBHOOK_SECRET");
  const secretValid = secret !== undefined && WEBHOOK_SECRET_PATTERN.test(secret);
  if (secret !== undefined && !secretValid) reader.reject("TELEGRAM_WEBHOOK_SECRET", `must be ${WEBHOOK_SECRET_RULE}`);

  if (!reader.has("TELEGRAM_WEBHOOK_URL")) {
    if (secret !== undefined) {
      reader.warn("TELEGRAM_WEBHOOK_SECRET has no effect without TELEGRAM_WEBHOOK_URL (Telegram uses long polling)");
    }
    return undefined;
  }
  if (secret === undefined) {
    reader.fail("TELEGRAM_WEBHOOK_SECRET", `is required with TELEGRAM_WEBHOOK_URL: set it to ${WEBHOOK_SECRET_RULE}`);
  }
  if (url?.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    reader.reject("TELEGRAM_WEBHOOK_URL", "must be an https:// URL; plain http:// is only accepted for loopback hosts");
    return undefined;
  }
  const text = reader.text("TELEGRAM_WEBHOOK_URL");
  return url && text !== undefined && secret !== undefined && secretValid ? { url: text, secret } : undefined;
}

export function readDiscordSettings(reader: SettingReader): DiscordSettings | undefined {
  const token = reader.text("DISCORD_BOT_TOKEN");
  const apiUrl = reader.httpUrl("DISCORD_API_URL");
  if (token === undefined) {
    ignoredWithoutToken(reader, "DISCORD_BOT_TOKEN", ["DISCORD_API_URL"]);
    return undefined;
  }
  return definedOnly({ token, apiUrl });
}

export function readSlackSettings(reader: SettingReader): SlackSettings | undefined {
  const botToken = reader.text("SLACK_BOT_TOKEN");
  const signingSecret = reader.text("SLACK_SIGNING_SECRET");
  const appToken = reader.text("SLACK_APP_TOKEN");
  const apiUrl = reader.httpUrl("SLACK_API_URL");
  if (appToken !== undefined && !appToken.startsWith("xapp-")) {
    const hint = "an app-level token from the app's Basic Information page";
    reader.reject("SLACK_APP_TOKEN", `must start with xapp- (${hint})`);
  }
  if (botToken === undefined) {
    requireToken(reader, "SLACK_BOT_TOKEN", ["SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"]);
    ignoredWithoutToken(reader, "SLACK_BOT_TOKEN", ["SLACK_API_URL"]);
    return undefined;
  }
  if (signingSecret === undefined && appToken === undefined) {
    reader.fail(
      "SLACK_BOT_TOKEN",
      "needs SLACK_SIGNING_SECRET (events over HTTP at POST /slack/events) or SLACK_APP_TOKEN (Socket Mode): " +
        "add one of them",
    );
  }
  return definedOnly({ botToken, signingSecret, appToken, apiUrl });
}

/** Settings that only make sense with the platform's token are an error without it. */
function requireToken(reader: SettingReader, token: SettingName, dependents: readonly SettingName[]): void {
  for (const name of dependents) {
    if (reader.has(name)) reader.fail(name, `needs ${token}: set the token too, or remove ${name}`);
  }
}

/** Overrides that are harmless without the token are only worth a warning. */
function ignoredWithoutToken(reader: SettingReader, token: SettingName, dependents: readonly SettingName[]): void {
  for (const name of dependents) {
    if (reader.has(name)) reader.warn(`${name} has no effect without ${token}`);
  }
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
