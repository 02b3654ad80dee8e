import { createMetricsRegistry, silentLogger } from "@hermes/agent";
import { describe, expect, it } from "vitest";
import type { AdapterContext, PlatformAdapter } from "../core/adapter.js";
import { startAdapters } from "./adapter-start.js";
import { PlatformHealth } from "./platform-health.js";

function adapter(platform: string, start: (context: AdapterContext) => Promise<void>): PlatformAdapter {
  return { platform, textLimit: 1000, start, stop: async () => undefined, send: async () => ({ ok: true }) };
}

function health(platforms: string[]): PlatformHealth {
  return new PlatformHealth({ platforms, logger: silentLogger, up: createMetricsRegistry().gauge("up", "Up.", { labelNames: ["platform"] }) });
}

const context = () => ({ receive: async () => undefined });

describe("startAdapters", () => {
  it("does not let a hanging start hold up the others or the caller", async () => {
    let releaseSlow: () => void = () => undefined;
    const slowStarted = new Promise<void>((resolve) => (releaseSlow = resolve));
    const platforms = health(["slow", "quick"]);
    const started = await startAdapters(
      [
        adapter("slow", () => slowStarted),
        adapter("quick", async (ctx) => ctx.reportStatus({ state: "connected" })),
      ],
      { context, health: platforms, logger: silentLogger, waitMs: 50 },
    );
    expect(platforms.get("slow")?.state).toBe("connecting");
    expect(platforms.get("quick")?.state).toBe("connected");
    releaseSlow();
    await started.settled(1_000);
    // It said nothing itself and its start succeeded.
    expect(platforms.get("slow")?.state).toBe("connected");
  });

  it("shows a start that throws as failed with its cause", async () => {
    const platforms = health(["telegram"]);
    await startAdapters(
      [
        adapter("telegram", async () => {
          throw new Error("webhook mode needs the gateway's HTTP server");
        }),
      ],
      { context, health: platforms, logger: silentLogger },
    );
    expect(platforms.get("telegram")).toMatchObject({ state: "failed", lastError: "webhook mode needs the gateway's HTTP server" });
  });

  it("keeps what the adapter reported rather than inferring connected", async () => {
    const platforms = health(["discord"]);
    await startAdapters([adapter("discord", async (ctx) => ctx.reportStatus({ state: "retrying", error: "websocket closed" }))], {
      context,
      health: platforms,
      logger: silentLogger,
    });
    expect(platforms.get("discord")).toMatchObject({ state: "retrying", lastError: "websocket closed" });
  });
});
