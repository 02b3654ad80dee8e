import { describe, expect, it } from "vitest";
import { readDiscordSettings, readSlackSettings, readTelegramSettings } from "./platforms.js";
import { SettingReader } from "./setting-reader.js";
import type { SettingName } from "./settings.js";

function readerOf(values: Partial<Record<SettingName, string>>): SettingReader {
  return new SettingReader(new Map(Object.entries(values).map(([name, text]) => [name, { text }])));
}

const TOKEN = "123456:telegram-test-token";

describe("readTelegramSettings", () => {
  it("is absent without a token", () => {
    const reader = readerOf({});
    expect(readTelegramSettings(reader)).toBeUndefined();
    expect(reader.issues).toEqual([]);
  });

  it("defaults to the official API root and long polling", () => {
    expect(readTelegramSettings(readerOf({ TELEGRAM_BOT_TOKEN: TOKEN }))).toStrictEqual({
      token: TOKEN,
      apiRoot: "https://api.telegram.org",
    });
  });

  it("drops trailing slashes from a custom API root", () => {
    const reader = readerOf({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: "http://127.0.0.1:8081//" });
    expect(readTelegramSettings(reader)?.apiRoot).toBe("http://127.0.0.1:8081");
  });

  it("reads webhook mode with its secret", () => {
    const reader = readerOf({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.org/telegram/webhook",
      TELEGRAM_WEBHOOK_SECRET: "s3cret_Value-1",
    });
    expect(readTelegramSettings(reader)?.webhook).toEqual({
      url: "https://bot.example.org/telegram/webhook",
      secret: "s3cret_Value-1",
    });
    expect(reader.issues).toEqual([]);
  });

  it("accepts plain http webhooks only on loopback hosts", () => {
    for (const url of ["http://127.0.0.1:8642/hook", "http://localhost/hook", "http://[::1]:9/hook"]) {
      const reader = readerOf({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_URL: url, TELEGRAM_WEBHOOK_SECRET: "abc" });
      expect(readTelegramSettings(reader)?.webhook?.url).toBe(url);
    }
    const reader = readerOf({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: "http://bot.example.org/hook",
      TELEGRAM_WEBHOOK_SECRET: "abc",
    });
    readTelegramSettings(reader);
    expect(reader.issues).toEqual([
      {
        setting: "TELEGRAM_WEBHOOK_URL",
        message: 'must be an https:// URL; plain http:// is only accepted for loopback hosts (got "http://bot.example.org/hook")',
      },
    ]);
  });

  it("requires a secret with the webhook URL", () => {
    const reader = readerOf({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_URL: "https://bot.example.org/hook" });
    expect(readTelegramSettings(reader)?.webhook).toBeUndefined();
    expect(reader.issues).toEqual([
      {
        setting: "TELEGRAM_WEBHOOK_SECRET",
        message: "is required with TELEGRAM_WEBHOOK_URL: set it to 1–256 characters of A–Z, a–z, 0–9, _ and -",
      },
    ]);
  });

  it.each(["has space", "semi;colon", "x".repeat(257)])("rejects the webhook secret %j without echoing it", (secret) => {
    const reader = readerOf({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.org/hook",
      TELEGRAM_WEBHOOK_SECRET: secret,
    });
    readTelegramSettings(reader);
    expect(reader.issues).toEqual([
      { setting: "TELEGRAM_WEBHOOK_SECRET", message: "must be 1–256 characters of A–Z, a–z, 0–9, _ and -" },
    ]);
  });

  it("refuses webhook settings without the bot token", () => {
    const reader = readerOf({ TELEGRAM_WEBHOOK_URL: "https://bot.example.org/hook", TELEGRAM_WEBHOOK_SECRET: "abc" });
    expect(readTelegramSettings(reader)).toBeUndefined();
    expect(reader.issues).toEqual([
      { setting: "TELEGRAM_WEBHOOK_URL", message: "needs TELEGRAM_BOT_TOKEN: set the token too, or remove TELEGRAM_WEBHOOK_URL" },
      {
        setting: "TELEGRAM_WEBHOOK_SECRET",
        message: "needs TELEGRAM_BOT_TOKEN: set the token too, or remove TELEGRAM_WEBHOOK_SECRET",
      },
    ]);
  });

  it("warns about settings that have no effect", () => {
    const withoutUrl = readerOf({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: "abc" });
    expect(readTelegramSettings(withoutUrl)?.webhook).toBeUndefined();
    expect(withoutUrl.warnings).toEqual([
      "TELEGRAM_WEBHOOK_SECRET has no effect without TELEGRAM_WEBHOOK_URL (Telegram uses long polling)",
    ]);
    const withoutToken = readerOf({ TELEGRAM_API_ROOT: "http://127.0.0.1:8081" });
    readTelegramSettings(withoutToken);
    expect(withoutToken.warnings).toEqual(["TELEGRAM_API_ROOT has no effect without TELEGRAM_BOT_TOKEN"]);
  });
});

describe("readDiscordSettings", () => {
  it("reads the token and an optional REST base", () => {
    expect(readDiscordSettings(readerOf({ DISCORD_BOT_TOKEN: "d-token" }))).toStrictEqual({ token: "d-token" });
    const reader = readerOf({ DISCORD_BOT_TOKEN: "d-token", DISCORD_API_URL: "http://127.0.0.1:9000/api/v10" });
    expect(readDiscordSettings(reader)).toEqual({ token: "d-token", apiUrl: "http://127.0.0.1:9000/api/v10" });
  });

  it("is absent without a token, warning about a lone API URL", () => {
    const reader = readerOf({ DISCORD_API_URL: "http://127.0.0.1:9000" });
    expect(readDiscordSettings(reader)).toBeUndefined();
    expect(reader.warnings).toEqual(["DISCORD_API_URL has no effect without DISCORD_BOT_TOKEN"]);
  });

  it("rejects an API URL that is not http(s)", () => {
    const reader = readerOf({ DISCORD_BOT_TOKEN: "d-token", DISCORD_API_URL: "ws://127.0.0.1:9000" });
    readDiscordSettings(reader);
    expect(reader.issues.map((issue) => issue.setting)).toEqual(["DISCORD_API_URL"]);
  });
});

describe("readSlackSettings", () => {
  it("accepts HTTP events with a signing secret", () => {
    const reader = readerOf({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_SIGNING_SECRET: "sign" });
    expect(readSlackSettings(reader)).toStrictEqual({ botToken: "xoxb-1", signingSecret: "sign" });
    expect(reader.issues).toEqual([]);
  });

  it("accepts Socket Mode with an app token, and an API URL override", () => {
    const reader = readerOf({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xapp-1-abc", SLACK_API_URL: "http://127.0.0.1:7000/api/" });
    expect(readSlackSettings(reader)).toEqual({ botToken: "xoxb-1", appToken: "xapp-1-abc", apiUrl: "http://127.0.0.1:7000/api/" });
  });

  it("says what to add when the bot token comes alone", () => {
    const reader = readerOf({ SLACK_BOT_TOKEN: "xoxb-1" });
    readSlackSettings(reader);
    expect(reader.issues).toEqual([
      {
        setting: "SLACK_BOT_TOKEN",
        message:
          "needs SLACK_SIGNING_SECRET (events over HTTP at POST /slack/events) or SLACK_APP_TOKEN (Socket Mode): add one of them",
      },
    ]);
  });

  it("requires app tokens to start with xapp-, without echoing the token", () => {
    const reader = readerOf({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xoxb-wrong-kind" });
    readSlackSettings(reader);
    expect(reader.issues).toEqual([
      { setting: "SLACK_APP_TOKEN", message: "must start with xapp- (an app-level token from the app's Basic Information page)" },
    ]);
  });

  it("refuses a signing secret or app token without the bot token", () => {
    const reader = readerOf({ SLACK_SIGNING_SECRET: "sign", SLACK_APP_TOKEN: "xapp-1" });
    expect(readSlackSettings(reader)).toBeUndefined();
    expect(reader.issues.map((issue) => `${issue.setting}: ${issue.message}`)).toEqual([
      "SLACK_SIGNING_SECRET: needs SLACK_BOT_TOKEN: set the token too, or remove SLACK_SIGNING_SECRET",
      "SLACK_APP_TOKEN: needs SLACK_BOT_TOKEN: set the token too, or remove SLACK_APP_TOKEN",
    ]);
  });
});
