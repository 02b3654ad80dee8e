import { describe, expect, it } from "vitest";
import type { GatewayConfig } from "./gateway-config.js";
import { gatewayPaths } from "./load-config.js";
import { configSecrets } from "./secrets.js";

const BASE: GatewayConfig = {
  home: "/srv/hermes",
  paths: gatewayPaths("/srv/hermes"),
  tools: ["think"],
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
  limits: {},
  interaction: { streaming: "off", approval: { tools: [], timeoutMs: 300_000 } },
};

describe("configSecrets", () => {
  it("is empty when nothing secret is configured", () => {
    expect(configSecrets({ ...BASE, model: { model: "ollama/llama3", contextWindow: 128000 } })).toEqual([]);
  });

  it("lists every key, token and signing secret once", () => {
    const config: GatewayConfig = {
      ...BASE,
      model: { model: "m", apiKey: "model-key", contextWindow: 128000 },
      fallback: { model: "f", apiKey: "fallback-key" },
      telegram: { token: "tg-token", apiRoot: "https://api.telegram.org", webhook: { url: "https://x.test/h", secret: "hook-secret" } },
      discord: { token: "discord-token" },
      slack: { botToken: "xoxb-bot", signingSecret: "signing", appToken: "xapp-app" },
      search: { kind: "brave", apiKey: "brave-key" },
      metricsToken: "metrics-token",
      providerKeys: { ANTHROPIC_API_KEY: "anthropic-key" },
    };
    expect(configSecrets(config).sort()).toEqual(
      ["model-key", "fallback-key", "tg-token", "hook-secret", "discord-token", "xoxb-bot", "signing", "xapp-app", "brave-key", "metrics-token", "anthropic-key"].sort(),
    );
  });

  it("includes the Redis password as written and decoded, and passwords in other URLs", () => {
    const config: GatewayConfig = {
      ...BASE,
      redisUrl: "redis://default:p%40ss@127.0.0.1:6379/0",
      model: { model: "m", baseUrl: "http://user:endpoint-pw@127.0.0.1:8000/v1", contextWindow: 128000 },
      search: { kind: "searxng", url: "http://127.0.0.1:8888" },
    };
    expect(configSecrets(config).sort()).toEqual(["endpoint-pw", "p%40ss", "p@ss"].sort());
  });

  it("lists each of several comma-separated keys on its own, so a key logged alone is masked", () => {
    const config: GatewayConfig = {
      ...BASE,
      model: { model: "m", apiKey: "key-one, key-two", contextWindow: 128000 },
      providerKeys: { OPENAI_API_KEY: "oa-one,oa-two" },
    };
    expect(configSecrets(config)).toEqual(expect.arrayContaining(["key-one", "key-two", "oa-one", "oa-two"]));
  });
});
