import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatConfigIssues, type ConfigIssue } from "./errors.js";
import type { GatewayConfig } from "./gateway-config.js";
import { loadConfig, type ConfigResult } from "./load-config.js";

const KNOWN_TOOLS = ["read_file", "write_file", "terminal", "think", "web_search", "web_fetch"];
const DEFAULT_TOOLS = ["think", "web_search", "web_fetch"];

let dir: string;
let cwd: string;
let homeDir: string;
let hermesHome: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "hermes-"));
  cwd = path.join(dir, "project");
  homeDir = path.join(dir, "user");
  hermesHome = path.join(dir, "state");
  await Promise.all([fs.mkdir(cwd), fs.mkdir(homeDir), fs.mkdir(hermesHome)]);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function load(env: Record<string, string | undefined>): Promise<ConfigResult> {
  return loadConfig({ env: { HERMES_HOME: hermesHome, ...env }, cwd, homeDir, knownTools: KNOWN_TOOLS, defaultTools: DEFAULT_TOOLS });
}

async function loadOk(env: Record<string, string | undefined>): Promise<GatewayConfig> {
  const result = await load(env);
  if (!result.ok) throw new Error(formatConfigIssues(result.errors));
  return result.config;
}

async function loadErrors(env: Record<string, string | undefined>): Promise<ConfigIssue[]> {
  const result = await load(env);
  if (result.ok) throw new Error("expected the configuration to be rejected");
  return result.errors;
}

describe("loadConfig defaults", () => {
  it("starts with nothing configured", async () => {
    const result = await load({});
    expect(result).toEqual({
      ok: true,
      warnings: [],
      config: {
        home: hermesHome,
        paths: {
          stateDb: path.join(hermesHome, "state.db"),
          memory: path.join(hermesHome, "memory"),
          skills: path.join(hermesHome, "skills"),
          hooks: path.join(hermesHome, "hooks"),
          workspace: path.join(hermesHome, "workspace"),
          logs: path.join(hermesHome, "logs"),
          sessions: path.join(hermesHome, "sessions"),
        },
        tools: DEFAULT_TOOLS,
        maxSteps: 50,
        subagentMaxSteps: 20,
        workers: 4,
        http: { host: "127.0.0.1", port: 8642 },
        allowedUsers: { everyone: false, users: [] },
        webAllowPrivate: false,
        logLevel: "info",
        providerKeys: {},
        sessionScope: { groupSessions: "per_user", threadSessions: "shared" },
        memoryScope: "user",
        reflection: { enabled: true, interval: 10 },
        compressionThreshold: 0.5,
        retention: { days: 30 },
        limits: { ratePerMinute: 20, maxQueued: 10 },
        interaction: { streaming: "off", approval: { tools: ["terminal"], timeoutMs: 300_000 } },
      },
    });
  });

  it("puts HERMES_HOME under the given home folder by default", async () => {
    const result = await loadConfig({ env: {}, cwd, homeDir, knownTools: KNOWN_TOOLS, defaultTools: DEFAULT_TOOLS });
    expect(result.ok && result.config.paths.stateDb).toBe(path.join(homeDir, ".hermes-gateway", "state.db"));
  });

  it("expands ~ in HERMES_HOME with the given home folder", async () => {
    const config = await loadOk({ HERMES_HOME: "~/bots/hermes" });
    expect(config.home).toBe(path.join(homeDir, "bots", "hermes"));
  });
});

describe("loadConfig reads every setting", () => {
  it("builds the full configuration", async () => {
    const config = await loadOk({
      HERMES_MODEL: "anthropic/claude-sonnet-4-5",
      HERMES_API_KEY: "sk-ant-test",
      HERMES_FALLBACK_MODEL: "openai/gpt-4o-mini",
      HERMES_TOOLS: "default,read_file",
      HERMES_MAX_STEPS: "1000",
      HERMES_WORKERS: "64",
      HERMES_MAX_ATTACHMENT_MB: "5",
      HERMES_HTTP_HOST: "0.0.0.0",
      HERMES_HTTP_PORT: "0",
      HERMES_WORKER_HTTP_PORT: "9100",
      REDIS_URL: "rediss://127.0.0.1:6380",
      HERMES_ALLOWED_USERS: "console:me",
      TELEGRAM_ALLOWED_USERS: "42",
      TELEGRAM_BOT_TOKEN: "123:tg",
      DISCORD_BOT_TOKEN: "dc",
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_APP_TOKEN: "xapp-1",
      BRAVE_API_KEY: "brave",
      HERMES_WEB_ALLOW_PRIVATE: "yes",
      HERMES_LOG_LEVEL: "Warn",
      HERMES_SYSTEM_PROMPT: "Always answer in haiku.",
    });
    expect(config).toMatchObject({
      model: { model: "anthropic/claude-sonnet-4-5", apiKey: "sk-ant-test", contextWindow: 128000 },
      fallback: { model: "openai/gpt-4o-mini" },
      tools: ["think", "web_search", "web_fetch", "read_file"],
      maxSteps: 1000,
      workers: 64,
      maxAttachmentBytes: 5 * 1024 * 1024,
      http: { host: "0.0.0.0", port: 0 },
      workerHttpPort: 9100,
      redisUrl: "rediss://127.0.0.1:6380",
      allowedUsers: {
        everyone: false,
        users: [
          { platform: "console", userId: "me" },
          { platform: "telegram", userId: "42" },
        ],
      },
      telegram: { token: "123:tg", apiRoot: "https://api.telegram.org" },
      discord: { token: "dc" },
      slack: { botToken: "xoxb-1", appToken: "xapp-1" },
      search: { kind: "brave", apiKey: "brave" },
      webAllowPrivate: true,
      logLevel: "warn",
      systemPrompt: "Always answer in haiku.",
    });
  });

  it("prefers SearxNG over Brave, with a warning", async () => {
    const result = await load({ HERMES_SEARCH_URL: "http://127.0.0.1:8888", BRAVE_API_KEY: "brave" });
    expect(result.ok && result.config.search).toEqual({ kind: "searxng", url: "http://127.0.0.1:8888" });
    expect(result.warnings).toEqual([
      "both HERMES_SEARCH_URL and BRAVE_API_KEY are set; web_search uses SearxNG at HERMES_SEARCH_URL",
    ]);
  });
});

describe("loadConfig errors", () => {
  it("reports every problem at once, each naming its setting", async () => {
    const errors = await loadErrors({
      HERMES_HTTP_PORT: "abc",
      HERMES_WORKER_HTTP_PORT: "70000",
      HERMES_MAX_STEPS: "0",
      HERMES_WORKERS: "65",
      HERMES_MAX_ATTACHMENT_MB: "0",
      HERMES_CONTEXT_WINDOW: "lots",
      HERMES_TOOLS: "think,shell",
      REDIS_URL: "http://127.0.0.1:6379",
      HERMES_ALLOWED_USERS: "alice",
      HERMES_WEB_ALLOW_PRIVATE: "sometimes",
      HERMES_LOG_LEVEL: "trace",
      HERMES_SEARCH_URL: "searx.local",
    });
    expect(errors).toEqual([
      { setting: "HERMES_CONTEXT_WINDOW", message: 'must be an integer of at least 1024 (got "lots")' },
      {
        setting: "HERMES_TOOLS",
        message: 'unknown tool "shell" (known: default, read_file, write_file, terminal, think, web_search, web_fetch)',
      },
      { setting: "HERMES_MAX_STEPS", message: 'must be an integer from 1 to 1000 (got "0")' },
      { setting: "HERMES_WORKERS", message: 'must be an integer from 1 to 64 (got "65")' },
      { setting: "HERMES_MAX_ATTACHMENT_MB", message: 'must be an integer from 1 to 1024 (got "0")' },
      { setting: "HERMES_HTTP_PORT", message: 'must be an integer from 0 to 65535 (got "abc")' },
      { setting: "HERMES_WORKER_HTTP_PORT", message: 'must be an integer from 0 to 65535 (got "70000")' },
      { setting: "REDIS_URL", message: "must be a redis:// or rediss:// URL" },
      { setting: "HERMES_ALLOWED_USERS", message: 'has invalid entries: "alice" is not platform:userId or *' },
      { setting: "HERMES_SEARCH_URL", message: 'must be an http:// or https:// URL (got "searx.local")' },
      {
        setting: "HERMES_WEB_ALLOW_PRIVATE",
        message: 'must be true or false (1/0, yes/no and on/off also work) (got "sometimes")',
      },
      { setting: "HERMES_LOG_LEVEL", message: 'must be one of debug, info, warn, error (got "trace")' },
    ]);
  });

  it("reads HERMES_MEMORY_SCOPE and names it when the value is not a scope", async () => {
    expect((await loadOk({ HERMES_MEMORY_SCOPE: "Chat" })).memoryScope).toBe("chat");
    expect((await loadOk({ HERMES_MEMORY_SCOPE: "shared" })).memoryScope).toBe("shared");
    expect(await loadErrors({ HERMES_MEMORY_SCOPE: "everyone" })).toEqual([
      { setting: "HERMES_MEMORY_SCOPE", message: 'must be one of user, chat, shared (got "everyone")' },
    ]);
  });

  it("formats as a header and one line per setting, without a stack trace", async () => {
    const errors = await loadErrors({ HERMES_HTTP_PORT: "abc", HERMES_BASE_URL: "http://127.0.0.1:8000/v1" });
    const text = formatConfigIssues(errors);
    expect(text).toBe(
      [
        "Invalid configuration:",
        "- HERMES_MODEL: is required with HERMES_BASE_URL: set it to the model id the endpoint serves",
        '- HERMES_HTTP_PORT: must be an integer from 0 to 65535 (got "abc")',
      ].join("\n"),
    );
  });

  it("reads HERMES_METRICS_TOKEN and refuses one that cannot travel in a header, without quoting it", async () => {
    const good = await load({ HERMES_METRICS_TOKEN: "scrape-Token_42" });
    expect(good.ok && good.config.metricsToken).toBe("scrape-Token_42");
    const errors = await loadErrors({ HERMES_METRICS_TOKEN: "has a space-secret" });
    expect(errors).toEqual([
      { setting: "HERMES_METRICS_TOKEN", message: "must be printable ASCII without spaces (it is sent as `Authorization: Bearer <token>`)" },
    ]);
    expect(JSON.stringify(errors)).not.toContain("space-secret");
  });

  it("reads HERMES_DATABASE_URL as a PostgreSQL URL and refuses any other, without printing its password", async () => {
    expect((await loadOk({ HERMES_DATABASE_URL: "postgres://hermes:pw@db:5432/hermes" })).databaseUrl).toBe("postgres://hermes:pw@db:5432/hermes");
    expect((await loadOk({ HERMES_DATABASE_URL: "postgresql://db/hermes" })).databaseUrl).toBe("postgresql://db/hermes");
    expect((await loadOk({})).databaseUrl).toBeUndefined();
    const errors = await loadErrors({ HERMES_DATABASE_URL: "mysql://root:db-secret@db/hermes" });
    expect(errors).toEqual([{ setting: "HERMES_DATABASE_URL", message: "must be a postgres:// or postgresql:// URL" }]);
    expect(JSON.stringify(errors)).not.toContain("db-secret");
  });

  it("never puts a secret value in an error", async () => {
    const result = await load({ SLACK_BOT_TOKEN: "xoxb-1", SLACK_APP_TOKEN: "xoxp-very-secret-value", REDIS_URL: "tcp://:pw-secret@h" });
    expect(JSON.stringify(result)).not.toMatch(/very-secret|pw-secret/);
  });
});

describe("loadConfig sources", () => {
  it("reads .env from the working folder, with the real environment winning", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_MODEL=dotenv/model\nHERMES_WORKERS=2\nHERMES_LOG_LEVEL=debug\n");
    const config = await loadOk({ HERMES_WORKERS: "6", HERMES_LOG_LEVEL: "" });
    expect(config.model?.model).toBe("dotenv/model");
    expect(config.workers).toBe(6);
    expect(config.logLevel).toBe("debug");
  });

  it("reads $HERMES_HOME/config.yaml below the environment and .env", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "HERMES_WORKERS=2\n");
    await fs.writeFile(
      path.join(hermesHome, "config.yaml"),
      "HERMES_MODEL: anthropic/claude-sonnet-4-5\nHERMES_WORKERS: 8\nHERMES_HTTP_PORT: 9000\nHERMES_WEB_ALLOW_PRIVATE: true\n",
    );
    const config = await loadOk({ HERMES_HTTP_PORT: "9001" });
    expect(config.model?.model).toBe("anthropic/claude-sonnet-4-5");
    expect(config.workers).toBe(2);
    expect(config.http.port).toBe(9001);
    expect(config.webAllowPrivate).toBe(true);
  });

  it("names config.yaml and the line when a value there is invalid", async () => {
    const file = path.join(hermesHome, "config.yaml");
    await fs.writeFile(file, "HERMES_LOG_LEVEL: info\nHERMES_MAX_STEPS: 1.5\n");
    expect(await loadErrors({})).toEqual([
      { setting: "HERMES_MAX_STEPS", message: `must be an integer from 1 to 1000 (got "1.5" in ${file} line 2)` },
    ]);
  });

  it("reports malformed YAML by file and line, alongside the other errors", async () => {
    const file = path.join(hermesHome, "config.yaml");
    await fs.writeFile(file, "HERMES_MODEL: 'unclosed\n");
    const errors = await loadErrors({ HERMES_WORKERS: "zero" });
    expect(errors.map((issue) => issue.setting)).toEqual([file, "HERMES_WORKERS"]);
    expect(errors[0]?.message).toMatch(/^line \d+, column \d+: invalid YAML: /);
  });

  it("collects provider API keys from the environment, .env and config.yaml", async () => {
    await fs.writeFile(path.join(cwd, ".env"), "OPENAI_API_KEY=from-dotenv\n");
    await fs.writeFile(path.join(hermesHome, "config.yaml"), "GEMINI_API_KEY: from-yaml\nOPENAI_API_KEY: loses\n");
    const result = await load({ ANTHROPIC_API_KEY: "from-env" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.warnings).toEqual([]);
    expect(result.config.providerKeys).toEqual({ ANTHROPIC_API_KEY: "from-env", OPENAI_API_KEY: "from-dotenv", GEMINI_API_KEY: "from-yaml" });
  });

  it("warns about unknown keys in config.yaml but still starts", async () => {
    const file = path.join(hermesHome, "config.yaml");
    await fs.writeFile(file, "HERMES_WORKERZ: 3\n");
    const result = await load({});
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([`${file} line 1: unknown setting "HERMES_WORKERZ" is ignored (did you mean HERMES_WORKERS?)`]);
  });
});
