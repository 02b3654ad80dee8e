import { describe, expect, it } from "vitest";
import { isSecretSetting, isSettingName, SETTINGS } from "./settings.js";

// The variable names of the design's configuration table are a contract with operators.
const DESIGN_TABLE = [
  "HERMES_HOME",
  "HERMES_MODEL",
  "HERMES_BASE_URL",
  "HERMES_API_KEY",
  "HERMES_CONTEXT_WINDOW",
  "TELEGRAM_BOT_TOKEN",
  "TELEGRAM_API_ROOT",
  "TELEGRAM_WEBHOOK_URL",
  "TELEGRAM_WEBHOOK_SECRET",
  "DISCORD_BOT_TOKEN",
  "DISCORD_API_URL",
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_APP_TOKEN",
  "SLACK_API_URL",
  "HERMES_HTTP_HOST",
  "HERMES_HTTP_PORT",
  "REDIS_URL",
  "HERMES_WORKER_HTTP_PORT",
  "HERMES_WORKERS",
  "HERMES_ALLOWED_USERS",
  "TELEGRAM_ALLOWED_USERS",
  "DISCORD_ALLOWED_USERS",
  "SLACK_ALLOWED_USERS",
  "HERMES_TOOLS",
];

describe("SETTINGS", () => {
  it("lists every variable of the design's configuration table", () => {
    const names = SETTINGS.map((setting) => setting.name);
    for (const name of DESIGN_TABLE) expect(names).toContain(name);
  });

  it("names each setting once, with a description", () => {
    const names = SETTINGS.map((setting) => setting.name);
    expect(new Set(names).size).toBe(names.length);
    for (const setting of SETTINGS) expect(setting.description.length).toBeGreaterThan(10);
  });

  it("marks keys, tokens, signing secrets and the Redis and database URLs as secret, and nothing else", () => {
    const secrets = SETTINGS.filter((setting) => setting.secret).map((setting) => setting.name);
    expect(secrets.sort()).toEqual(
      [
        "BRAVE_API_KEY",
        "DISCORD_BOT_TOKEN",
        "HERMES_API_KEY",
        "HERMES_API_SERVER_KEY",
        "HERMES_DATABASE_URL",
        "HERMES_FALLBACK_API_KEY",
        "HERMES_METRICS_TOKEN",
        "HERMES_STT_API_KEY",
        "REDIS_URL",
        "SLACK_APP_TOKEN",
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_SECRET",
      ].sort(),
    );
    expect(isSecretSetting("SLACK_SIGNING_SECRET")).toBe(true);
    expect(isSecretSetting("HERMES_MODEL")).toBe(false);
  });

  it("states the defaults operators rely on", () => {
    const defaults = Object.fromEntries(SETTINGS.map((setting) => [setting.name, setting.default]));
    expect(defaults).toMatchObject({
      HERMES_HOME: "~/.hermes-gateway",
      HERMES_CONTEXT_WINDOW: "128000",
      HERMES_HTTP_HOST: "127.0.0.1",
      HERMES_HTTP_PORT: "8642",
      HERMES_WORKERS: "4",
      HERMES_MAX_STEPS: "50",
      HERMES_LOG_LEVEL: "info",
      TELEGRAM_API_ROOT: "https://api.telegram.org",
    });
  });

  it("recognises setting names exactly", () => {
    expect(isSettingName("HERMES_MODEL")).toBe(true);
    expect(isSettingName("hermes_model")).toBe(false);
    expect(isSettingName("PATH")).toBe(false);
  });
});
