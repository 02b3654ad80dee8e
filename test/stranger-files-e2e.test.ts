import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import { PairingService, type GatewayConfig, type PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter } from "@hermes/discord";
import { createSlackAdapter } from "@hermes/slack";
import { createTelegramAdapter } from "@hermes/telegram";
import { startDiscordFake } from "./fakes/discord/index.js";
import { startFakeSlack } from "./fakes/slack/fake-slack.js";
import { directMessage, eventCallback, postSlackEvent } from "./fakes/slack/slack-events.js";
import { startFakeTelegram } from "./fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const TELEGRAM_TOKEN = "123456:TEST-token";
const SLACK_SIGNING_SECRET = "stranger-files-signing-secret";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  // The gateway goes first so no adapter is still talking to a stand-in server that is closing.
  const failures: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

interface StartedGateway {
  h: GatewayHarness;
  /** Where the adapter saves files: `<HERMES_HOME>/workspace/attachments/<platform>`, as the gateway app sets it. */
  attachmentsDir: string;
}

/** A gateway nobody is allowlisted on (strangers get a pairing code), running the one real adapter given. */
async function startGateway(
  platform: string,
  env: Record<string, string>,
  adapterFor: (config: GatewayConfig, attachmentsDir: string) => PlatformAdapter,
  http = false,
): Promise<StartedGateway> {
  let attachmentsDir = "";
  const h = await startGatewayHarness({ HERMES_ALLOWED_USERS: "", ...env }, undefined, {
    http,
    adapters: (config) => {
      attachmentsDir = path.join(config.paths.workspace, "attachments", platform);
      return [adapterFor(config, attachmentsDir)];
    },
  });
  cleanups.push(() => h.close());
  return { h, attachmentsDir };
}

/** The files saved so far; a folder never created holds none. */
async function savedFiles(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

function pairingCodeIn(reply: string): string {
  const code = /pairing code: ([A-Z0-9]{8})/i.exec(reply)?.[1];
  if (code === undefined) throw new Error(`no pairing code in the reply: ${reply}`);
  return code;
}

/** The operator runs `hermes pairing approve <platform> <code>`. */
async function approve(h: GatewayHarness, platform: string, code: string): Promise<void> {
  const approved = await new PairingService({ store: h.gateway.store.pairing, logger: silentLogger }).approve(platform, code);
  expect(approved.ok).toBe(true);
}

/** The one file now saved holds `bytes`, and the model's request named it. */
async function expectOneSavedFile(started: StartedGateway, bytes: Buffer): Promise<string> {
  const saved = await savedFiles(started.attachmentsDir);
  expect(saved).toHaveLength(1);
  const savedPath = path.join(started.attachmentsDir, saved[0] ?? "");
  expect(await readFile(savedPath)).toEqual(bytes);
  expect(started.h.llm.requests).toHaveLength(1);
  expect(JSON.stringify(started.h.llm.requests[0]?.messages)).toContain(savedPath);
  return savedPath;
}

const STRANGER_BYTES = Buffer.from("a stranger's attachment, meant to fill the disk");
const APPROVED_BYTES = Buffer.from("notes from someone the operator approved");

describe("a stranger's files are listed, never downloaded; once paired, they are (real adapters against the stand-in servers)", () => {
  it("Telegram (grammY): no getFile or download for a stranger's document; after approval the document is saved", async () => {
    const telegram = await startFakeTelegram({ token: TELEGRAM_TOKEN });
    cleanups.push(() => telegram.close());
    const started = await startGateway(
      "telegram",
      { TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_ALLOWED_USERS: "" },
      (config, attachmentsDir) => {
        if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
        return createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir });
      },
    );
    const { h } = started;
    const stranger = { id: 99, first_name: "Stranger" };
    const dmKey = "agent:main:telegram:dm:99";

    const first = telegram.userWrites({ from: stranger, caption: "keep this", document: { content: STRANGER_BYTES, name: "junk.bin" } });
    await telegram.waitForConfirmation(first.update);
    await h.gateway.waitIdle(dmKey);
    const code = pairingCodeIn(telegram.sentTo(99).map((s) => s.visible).join("\n"));
    expect(h.llm.requests).toHaveLength(0);
    expect(telegram.callsOf("getFile")).toHaveLength(0);
    expect(telegram.downloads).toEqual([]);
    expect(await savedFiles(started.attachmentsDir)).toEqual([]);

    await approve(h, "telegram", code);
    h.llm.enqueue({ kind: "text", text: "Got your notes." });
    const second = telegram.userWrites({ from: stranger, caption: "now keep this", document: { content: APPROVED_BYTES, name: "notes.txt", mimeType: "text/plain" } });
    await telegram.waitForConfirmation(second.update);
    await h.gateway.waitIdle(dmKey);
    await expectOneSavedFile(started, APPROVED_BYTES);
    expect(telegram.downloads).toHaveLength(1);
    expect(telegram.sentTo(99).at(-1)?.visible).toBe("Got your notes.");
  });

  it("Discord (discord.js): a stranger's DM attachment is not saved; after approval it is", async () => {
    const discord = await startDiscordFake();
    cleanups.push(() => discord.close());
    const started = await startGateway(
      "discord",
      { DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: "" },
      (config, attachmentsDir) => {
        if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not configure Discord");
        return createDiscordAdapter(config.discord, { logger: silentLogger, attachmentsDir });
      },
    );
    const { h } = started;
    const stranger = discord.addUser("stranger");

    // The fake keeps no log of attachment downloads, so the empty folder is the proof nothing was fetched.
    const first = discord.postDm(stranger, "keep this", { attachments: [{ name: "junk.bin", data: STRANGER_BYTES }] });
    const [reply] = await discord.waitForSent(1);
    await h.gateway.waitIdle(`agent:main:discord:dm:${first.channelId}`);
    expect(reply?.channelId).toBe(first.channelId);
    const code = pairingCodeIn(reply?.content ?? "");
    expect(h.llm.requests).toHaveLength(0);
    expect(await savedFiles(started.attachmentsDir)).toEqual([]);

    await approve(h, "discord", code);
    h.llm.enqueue({ kind: "text", text: "Got your notes." });
    const second = discord.postDm(stranger, "now keep this", { attachments: [{ name: "notes.txt", data: APPROVED_BYTES, contentType: "text/plain" }] });
    await discord.waitForSent(2);
    await h.gateway.waitIdle(`agent:main:discord:dm:${second.channelId}`);
    await expectOneSavedFile(started, APPROVED_BYTES);
    expect(discord.sentTo(second.channelId).at(-1)?.content).toBe("Got your notes.");
  });

  it("Slack (Bolt): no download request for a stranger's shared file; after approval it is fetched with the bot token", async () => {
    const slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    slack.addUser({ id: "U_CAROL", name: "carol", displayName: "Carol" });
    const started = await startGateway(
      "slack",
      { SLACK_BOT_TOKEN: slack.botToken, SLACK_API_URL: slack.apiUrl, SLACK_SIGNING_SECRET, SLACK_ALLOWED_USERS: "", HERMES_HTTP_PORT: "0" },
      (config, attachmentsDir) => {
        if (!config.slack) throw new Error("SLACK_BOT_TOKEN did not configure Slack");
        return createSlackAdapter(config.slack, { logger: silentLogger, attachmentsDir });
      },
      true,
    );
    const { h } = started;
    const port = h.gateway.httpAddress?.port;
    if (port === undefined) throw new Error("the gateway serves no HTTP");
    const dmKey = "agent:main:slack:dm:D_CAROL";
    const sendFile = async (text: string, file: unknown): Promise<void> => {
      const event = eventCallback(directMessage({ channel: "D_CAROL", user: "U_CAROL", text, files: [file] }));
      const answer = await postSlackEvent(`http://127.0.0.1:${port}/slack/events`, event, { signingSecret: SLACK_SIGNING_SECRET });
      expect(answer.status).toBe(200);
      await h.gateway.waitIdle(dmKey);
    };
    const toCarol = (): string[] => slack.posted.filter((p) => p.channel === "D_CAROL").map((p) => p.text);

    await sendFile("keep this", slack.addFile({ name: "junk.bin", mimetype: "application/octet-stream", content: STRANGER_BYTES }));
    await vi.waitFor(() => expect(toCarol()).toHaveLength(1));
    const code = pairingCodeIn(toCarol().join("\n"));
    expect(h.llm.requests).toHaveLength(0);
    expect(slack.downloads).toEqual([]);
    expect(await savedFiles(started.attachmentsDir)).toEqual([]);

    await approve(h, "slack", code);
    h.llm.enqueue({ kind: "text", text: "Got your notes." });
    const notes = slack.addFile({ name: "notes.txt", mimetype: "text/plain", content: APPROVED_BYTES });
    await sendFile("now keep this", notes);
    await vi.waitFor(() => expect(toCarol().at(-1)).toBe("Got your notes."));
    await expectOneSavedFile(started, APPROVED_BYTES);
    expect(slack.downloads).toEqual([{ fileId: notes.id, authorization: `Bearer ${slack.botToken}` }]);
  });
});
