import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { GatewayConfig } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { createSlackAdapter } from "@hermes/slack";
import { createTelegramAdapter } from "@hermes/telegram";
import { startDiscordFake, type DiscordFake, type FakeUser as DiscordUser } from "../fakes/discord/index.js";
import { startFakeSlack, type FakeSlack } from "../fakes/slack/fake-slack.js";
import { postSlackEvent, type DeliveryOptions } from "../fakes/slack/slack-events.js";
import { startFakeTelegram, type FakeTelegram } from "../fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness } from "../support/gateway-harness.js";
import { recordingLogger, type RecordingLogger } from "../support/recording-logger.js";
export { waitUntil } from "../support/wait-until.js";

/**
 * The real gateway pipeline with one real platform client (grammY, Bolt, discord.js) against its stand-in, and a
 * recording logger shared by the gateway and the adapter, for the replay and hostile-input suites.
 */
export interface Stand<Fake> {
  fake: Fake;
  h: GatewayHarness;
  logger: RecordingLogger;
  close(): Promise<void>;
}

/** Hostile tests send more than a person would; the per-user and per-session limits are not what they test. */
const UNLIMITED: Record<string, string> = { HERMES_RATE_LIMIT: "off", HERMES_MAX_QUEUED: "off" };

export const TELEGRAM_TOKEN = "123456:TEST-token";
export const TELEGRAM_WEBHOOK_SECRET = "s3cret-token";

export async function startTelegramStand(options: { webhook?: boolean; maxAttachmentBytes?: number } = {}): Promise<Stand<FakeTelegram>> {
  const fake = await startFakeTelegram({ token: TELEGRAM_TOKEN, rateLimits: false });
  const logger = recordingLogger();
  const webhook: Record<string, string> = options.webhook
    ? { TELEGRAM_WEBHOOK_URL: "https://bot.example.invalid/telegram/webhook", TELEGRAM_WEBHOOK_SECRET }
    : {};
  const env = { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: fake.apiRoot, HERMES_ALLOWED_USERS: "telegram:7", HERMES_HTTP_PORT: "0", ...UNLIMITED, ...webhook };
  const adapters = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    const attachmentsDir = path.join(config.paths.workspace, "attachments");
    return [createTelegramAdapter(config.telegram, { logger, attachmentsDir, maxAttachmentBytes: options.maxAttachmentBytes ?? 20 * 1024 * 1024 })];
  };
  const h = await startGatewayHarness(env, undefined, { adapters, http: true, logger });
  return { fake, h, logger, close: closer(h, () => fake.close()) };
}

/** Where the gateway serves the Telegram webhook (the public URL's path on its loopback HTTP server). */
export function telegramWebhookUrl(h: GatewayHarness): string {
  return `http://127.0.0.1:${h.gateway.httpAddress?.port}/telegram/webhook`;
}

export const SLACK_SIGNING_SECRET = "reliability-signing-secret";

export interface SlackStandOptions {
  /** Events over Socket Mode (SLACK_APP_TOKEN) instead of signed HTTP requests. */
  socketMode?: boolean;
  ackDeadlineMs?: number;
  nameLookupWaitMs?: number;
}

export async function startSlackStand({ socketMode = false, ...tuning }: SlackStandOptions = {}): Promise<Stand<FakeSlack>> {
  const fake = await startFakeSlack();
  fake.addUser({ id: "U_ALICE", name: "alice", displayName: "Alice" });
  const logger = recordingLogger();
  const attachmentsDir = await mkdtemp(path.join(os.tmpdir(), "hermes-slack-rel-"));
  const env = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_API_URL: fake.apiUrl,
    ...(socketMode ? { SLACK_APP_TOKEN: fake.appToken } : { SLACK_SIGNING_SECRET }),
    HERMES_HTTP_PORT: "0",
    HERMES_ALLOWED_USERS: "slack:U_ALICE",
    ...UNLIMITED,
  };
  const adapters = (config: GatewayConfig) => {
    if (!config.slack) throw new Error("the test configuration has no Slack settings");
    return [createSlackAdapter(config.slack, { logger, attachmentsDir, ...tuning })];
  };
  const h = await startGatewayHarness(env, undefined, { adapters, http: !socketMode, logger });
  return {
    fake,
    h,
    logger,
    close: closer(h, async () => {
      await fake.close();
      await rm(attachmentsDir, { recursive: true, force: true });
    }),
  };
}

export function slackEventsUrl(h: GatewayHarness): string {
  return `http://127.0.0.1:${h.gateway.httpAddress?.port}/slack/events`;
}

/** POSTs an event signed as Slack signs it (unless told otherwise). */
export function deliverSlack(h: GatewayHarness, payload: unknown, options: Partial<DeliveryOptions> = {}): Promise<{ status: number; text: string }> {
  return postSlackEvent(slackEventsUrl(h), payload, { signingSecret: SLACK_SIGNING_SECRET, ...options });
}

export interface DiscordStand extends Stand<DiscordFake> {
  ada: DiscordUser;
  general: string;
}

export async function startDiscordStand(options: { maxAttachmentBytes?: number } = {}): Promise<DiscordStand> {
  const fake = await startDiscordFake();
  const guild = fake.addGuild({ name: "Hermes Lab", channels: ["general"], botRoles: ["Hermes"] });
  const ada = fake.addUser("ada", { globalName: "Ada" });
  const logger = recordingLogger();
  const adapters = (config: GatewayConfig) => {
    if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
    const attachmentsDir = path.join(config.paths.workspace, "attachments", "discord");
    return [createDiscordAdapter(config.discord, { logger, attachmentsDir, ...options })];
  };
  const env = { DISCORD_BOT_TOKEN: fake.token, DISCORD_API_URL: fake.apiUrl, DISCORD_ALLOWED_USERS: ada.id, ...UNLIMITED };
  const h = await startGatewayHarness(env, undefined, { adapters, logger });
  return { fake, h, logger, ada, general: guild.channels.general ?? "", close: closer(h, () => fake.close()) };
}

function closer(h: GatewayHarness, closeFake: () => Promise<void>): () => Promise<void> {
  return async () => {
    await h.close();
    await closeFake();
  };
}

/** Collects unhandled promise rejections and uncaught exceptions while a test runs (a crash would end up there). */
export function watchProcessFailures(): { failures: unknown[]; stop(): void } {
  const failures: unknown[] = [];
  const record = (reason: unknown): void => void failures.push(reason);
  process.on("unhandledRejection", record);
  process.on("uncaughtException", record);
  return {
    failures,
    stop: () => {
      process.off("unhandledRejection", record);
      process.off("uncaughtException", record);
    },
  };
}

/** The text of the last user message of a recorded model request. */
export function lastUserText(request: { messages: unknown[] } | undefined): string {
  const users = (request?.messages ?? []).filter((m): m is { role: string; content: unknown } => (m as { role?: unknown }).role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

