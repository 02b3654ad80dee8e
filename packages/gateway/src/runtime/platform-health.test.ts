import { createMetricsRegistry, type Logger } from "@hermes/agent";
import { describe, expect, it } from "vitest";
import { PlatformHealth } from "./platform-health.js";

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

function recordingLogger(lines: LogLine[]): Logger {
  const logger: Logger = {
    debug: (message, fields) => lines.push({ level: "debug", message, fields }),
    info: (message, fields) => lines.push({ level: "info", message, fields }),
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    error: (message, fields) => lines.push({ level: "error", message, fields }),
    child: () => logger,
  };
  return logger;
}

function setUp() {
  const registry = createMetricsRegistry();
  const lines: LogLine[] = [];
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  const health = new PlatformHealth({
    platforms: ["telegram", "discord"],
    logger: recordingLogger(lines),
    up: registry.gauge("adapter_up", "Up.", { labelNames: ["platform"] }),
    now: () => clock,
  });
  const upLines = async (): Promise<string[]> => (await registry.renderPrometheus()).split("\n").filter((line) => line.startsWith("hermes_adapter_up"));
  return { health, lines, upLines, advance: (ms: number) => (clock += ms) };
}

describe("PlatformHealth", () => {
  it("starts every platform connecting, down, with no error", async () => {
    const { health, upLines } = setUp();
    expect(health.snapshot()).toEqual({
      telegram: { state: "connecting", lastError: null, since: "2026-01-01T00:00:00.000Z" },
      discord: { state: "connecting", lastError: null, since: "2026-01-01T00:00:00.000Z" },
    });
    expect(await upLines()).toEqual(['hermes_adapter_up{platform="telegram"} 0', 'hermes_adapter_up{platform="discord"} 0']);
  });

  it("follows reports, sets the gauge and keeps the last error after a recovery", async () => {
    const { health, upLines, advance } = setUp();
    advance(1_000);
    health.report("telegram", { state: "connected" });
    expect(await upLines()).toContain('hermes_adapter_up{platform="telegram"} 1');

    advance(1_000);
    health.report("telegram", { state: "retrying", error: "401 Unauthorized: check TELEGRAM_BOT_TOKEN", retryAt: Date.parse("2026-01-01T00:00:07.000Z") });
    expect(health.get("telegram")).toEqual({
      state: "retrying",
      lastError: "401 Unauthorized: check TELEGRAM_BOT_TOKEN",
      since: "2026-01-01T00:00:02.000Z",
      retryAt: "2026-01-01T00:00:07.000Z",
    });
    expect(await upLines()).toContain('hermes_adapter_up{platform="telegram"} 0');

    advance(5_000);
    health.report("telegram", { state: "retrying", error: "401 Unauthorized: check TELEGRAM_BOT_TOKEN" });
    expect(health.get("telegram")?.since).toBe("2026-01-01T00:00:02.000Z");

    advance(1_000);
    health.report("telegram", { state: "connected" });
    expect(health.get("telegram")).toEqual({ state: "connected", lastError: "401 Unauthorized: check TELEGRAM_BOT_TOKEN", since: "2026-01-01T00:00:08.000Z" });
    expect(await upLines()).toEqual(['hermes_adapter_up{platform="telegram"} 1', 'hermes_adapter_up{platform="discord"} 0']);
  });

  it("logs each transition once at its level, and a new cause while retrying", () => {
    const { health, lines } = setUp();
    health.report("discord", { state: "connected" });
    health.report("discord", { state: "connected" });
    health.report("discord", { state: "retrying", error: "websocket closed (1006)" });
    health.report("discord", { state: "retrying", error: "websocket closed (1006)" });
    health.report("discord", { state: "retrying", error: "connect ECONNREFUSED 127.0.0.1:9" });
    health.report("discord", { state: "failed", error: "4004 Authentication failed" });

    expect(lines.map((line) => [line.level, line.fields?.state, line.fields?.error])).toEqual([
      ["info", "connected", undefined],
      ["warn", "retrying", "websocket closed (1006)"],
      ["warn", "retrying", "connect ECONNREFUSED 127.0.0.1:9"],
      ["error", "failed", "4004 Authentication failed"],
    ]);
    expect(lines[1]?.fields).toMatchObject({ platform: "discord", from: "connected" });
  });

  it("masks configured secrets in the error it serves and logs", () => {
    const lines: LogLine[] = [];
    const token = "123456:secret-bot-token-value";
    const health = new PlatformHealth({
      platforms: ["telegram"],
      logger: recordingLogger(lines),
      up: createMetricsRegistry().gauge("adapter_up", "Up.", { labelNames: ["platform"] }),
      secrets: [token],
    });
    health.report("telegram", { state: "retrying", error: `request to http://127.0.0.1:9/bot${token}/getUpdates failed` });

    expect(health.get("telegram")?.lastError).toBe("request to http://127.0.0.1:9/bot[REDACTED]/getUpdates failed");
    expect(JSON.stringify(health.snapshot())).not.toContain(token);
    expect(JSON.stringify(lines)).not.toContain(token);
  });
});
