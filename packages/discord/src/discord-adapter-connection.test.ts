import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { AdapterState, PlatformAdapter } from "@hermes/gateway";
import { startDiscordFake, type DiscordFake } from "../../../test/fakes/discord/index.js";
import { recordingContext, stateRuns, type RecordingContext } from "../../../test/support/recording-context.js";
import { createDiscordAdapter } from "./discord-adapter.js";
import type { ReconnectBackoff } from "./reconnect-backoff.js";

interface LogLine {
  level: "info" | "warn" | "error";
  message: string;
  fields?: Record<string, unknown>;
}

let fake: DiscordFake;
let adapter: PlatformAdapter | undefined;
let context: RecordingContext;
let logs: LogLine[];

const record =
  (level: LogLine["level"]) =>
  (message: string, fields?: Record<string, unknown>): void =>
    void logs.push({ level, message, ...(fields ? { fields } : {}) });
const logger: Logger = { ...silentLogger, info: record("info"), warn: record("warn"), error: record("error"), child: () => logger };

beforeEach(async () => {
  fake = await startDiscordFake();
  context = recordingContext({ withRoutes: false });
  logs = [];
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
});

const START_PATIENCE_MS = 20_000;

async function startAdapter(reconnectBackoff: ReconnectBackoff = { firstDelayMs: 10, maxDelayMs: 40 }): Promise<PlatformAdapter> {
  // start() returns at the first state after `connecting`; a generous wait keeps a slow machine from making it return
  // still connecting, which the assertions right after it do not expect.
  const started = createDiscordAdapter(
    { token: fake.token, apiUrl: fake.apiUrl },
    { logger, attachmentsDir: "/nonexistent", reconnectBackoff, connectTimeoutMs: START_PATIENCE_MS },
  );
  adapter = started;
  await started.start(context);
  return started;
}

/** Generous: discord.js pauses before reconnecting, and waits about 5 s between two IDENTIFYs. */
const PATIENCE = { timeout: 20_000, interval: 20 };

async function waitForStates(expected: AdapterState[]): Promise<void> {
  await vi.waitFor(() => expect(stateRuns(context.statuses)).toEqual(expected), PATIENCE);
}

async function expectMessagesFlow(text: string): Promise<void> {
  fake.postDm(fake.addUser(`user-${text}`), text);
  await vi.waitFor(() => expect(context.received.map((m) => m.text)).toContain(text), PATIENCE);
}

describe("Discord adapter connection state", () => {
  it.each([
    ["a close it resumes after (4000)", 4000],
    ["a connection killed without a close frame (1006)", 1006],
  ])("reports retrying then connected after %s, and messages flow afterwards", async (_what, code) => {
    await startAdapter();
    expect(context.statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);

    fake.dropConnections(code);
    await waitForStates(["connecting", "connected", "retrying", "connected"]);

    expect(context.statuses[2]).toEqual({ state: "retrying", error: "the gateway connection was lost; reconnecting" });
    expect(fake.gateway).toMatchObject({ identifies: 1, resumes: 1 });
    expect(logs.filter((l) => l.level === "error")).toEqual([]);
    expect(logs.some((l) => l.level === "warn" && l.fields?.error === "the gateway connection was lost; reconnecting")).toBe(true);
    await expectMessagesFlow("after the drop");
  });

  it("stays retrying while the gateway accepts the reconnect but does not answer, until it does", async () => {
    await startAdapter();
    fake.holdHello();
    fake.dropConnections();
    await fake.waitFor(() => fake.gateway.connections === 2, "the reconnect");
    expect(stateRuns(context.statuses)).toEqual(["connecting", "connected", "retrying"]);
    fake.releaseHello();
    await waitForStates(["connecting", "connected", "retrying", "connected"]);
    await expectMessagesFlow("answered at last");
  });

  it("reports connected again when Discord refuses the resume and the bot identifies anew", async () => {
    await startAdapter();
    fake.refuseNextResume();
    fake.dropConnections();
    await waitForStates(["connecting", "connected", "retrying", "connected"]);
    expect(fake.gateway).toMatchObject({ identifies: 2, refusedResumes: 1 });
    await expectMessagesFlow("after a new session");
  });

  it("keeps logging in again after a close discord.js gives up on (4004), and connects once Discord accepts the bot", async () => {
    await startAdapter();
    fake.refuseLogins(4004);
    fake.dropConnections(4004);
    await fake.waitFor(() => fake.gateway.refusedLogins >= 2, "repeated login attempts");
    const retrying = context.statuses.filter((s) => s.state === "retrying");
    expect(retrying[0]).toEqual({
      state: "retrying",
      error: "Discord closed the gateway connection with code 4004 (AuthenticationFailed): the bot token was rejected: check DISCORD_BOT_TOKEN",
      retryAt: expect.any(Number),
    });
    expect(new Set(retrying.map((s) => s.retryAt)).size).toBe(retrying.length);

    fake.acceptLogins();
    await waitForStates(["connecting", "connected", "retrying", "connected"]);
    const errors = logs.filter((l) => l.level === "error");
    expect(errors).toEqual([{ level: "error", message: "Discord connection failed; logging in again later", fields: expect.objectContaining({ error: retrying[0]?.error }) }]);
    expect(logs.some((l) => l.level === "warn" && l.message === "still cannot connect to Discord; trying again later")).toBe(true);
    await expectMessagesFlow("after the fix");
  });

  it("names the portal setting when Discord refuses the Message Content intent (4014)", async () => {
    fake.refuseLogins(4014);
    await startAdapter();
    expect(stateRuns(context.statuses)).toEqual(["connecting", "retrying"]);
    expect(context.statuses[1]?.error).toContain("Privileged Gateway Intents in the Discord developer portal");
    fake.acceptLogins();
    await waitForStates(["connecting", "retrying", "connected"]);
  });

  it("returns from start when the login is refused, keeps retrying, and connects once the token is accepted", async () => {
    fake.failGatewayDiscovery(401);
    await startAdapter();
    expect(context.statuses).toEqual([
      { state: "connecting" },
      { state: "retrying", error: "Discord rejected the bot token (401 Unauthorized): check DISCORD_BOT_TOKEN", retryAt: expect.any(Number) },
    ]);
    await fake.waitFor(() => fake.discoveries >= 2, "another login attempt");
    expect(fake.gateway.connections).toBe(0);

    fake.restoreGatewayDiscovery();
    await waitForStates(["connecting", "retrying", "connected"]);
    await expectMessagesFlow("finally in");
  });

  it("stops promptly while waiting to retry, and reports nothing after stopping", async () => {
    fake.failGatewayDiscovery(401);
    const started = await startAdapter({ firstDelayMs: 60_000, maxDelayMs: 60_000 });
    expect(stateRuns(context.statuses)).toEqual(["connecting", "retrying"]);

    await started.stop();
    fake.restoreGatewayDiscovery();

    expect(fake.discoveries).toBe(1);
    expect(stateRuns(context.statuses)).toEqual(["connecting", "retrying"]);
  });

  it("reports nothing when stopping a live connection, though discord.js sees it close", async () => {
    const started = await startAdapter();
    await started.stop();
    expect(context.statuses).toEqual([{ state: "connecting" }, { state: "connected" }]);
    expect(fake.connected).toBe(false);
  });
});
