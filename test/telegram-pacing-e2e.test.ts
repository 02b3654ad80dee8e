import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { PlatformPacer, TypingTracker, type OutboundTarget } from "@hermes/gateway";
import { createTelegramAdapter, type TelegramAdapter } from "@hermes/telegram";
import { groupChat, startFakeTelegram, type FakeTelegram } from "./fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";
import { recordingContext } from "./support/recording-context.js";

let fake: FakeTelegram | undefined;
let adapter: TelegramAdapter | undefined;
let typing: TypingTracker | undefined;
let dir: string | undefined;
let harness: GatewayHarness | undefined;

afterEach(async () => {
  typing?.stopAll();
  await adapter?.stop();
  await harness?.close();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fake = adapter = typing = dir = harness = undefined;
});

/** The real grammY adapter against the stand-in Telegram, which enforces Telegram's limits (on by default). */
async function start(): Promise<{ fake: FakeTelegram; adapter: TelegramAdapter; pacer: PlatformPacer; typing: TypingTracker }> {
  fake = await startFakeTelegram();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-pacing-"));
  adapter = createTelegramAdapter({ token: fake.token, apiRoot: fake.apiRoot }, { logger: silentLogger, attachmentsDir: dir, pollTimeoutSeconds: 1 });
  await adapter.start(recordingContext());
  const pacer = new PlatformPacer({ platforms: [adapter] });
  // A short interval makes typing refreshes contend with the replies for the same tokens.
  typing = new TypingTracker({ adapters: new Map([[adapter.platform, adapter]]), logger: silentLogger, intervalMs: 200, pacer });
  return { fake, adapter, pacer, typing };
}

/** Ten chats with a message each: eight private chats and two groups. */
function tenChats(telegram: FakeTelegram): string[] {
  const chats: string[] = [];
  for (let n = 1; n <= 8; n += 1) chats.push(String(telegram.userWrites({ from: { id: 1000 + n, first_name: `User${n}` }, text: "hi" }).message.chat.id));
  for (const id of [-201, -202]) chats.push(String(telegram.userWrites({ chat: groupChat(id, `Group ${id}`), text: "@hermes_test_bot hi" }).message.chat.id));
  return chats;
}

async function sendParts(telegram: TelegramAdapter, pacer: PlatformPacer, target: OutboundTarget, parts: number, signal?: AbortSignal): Promise<void> {
  for (let part = 1; part <= parts; part += 1) {
    await pacer.acquire(telegram.platform, target.chatId, signal);
    const sent = await telegram.send(target, { text: `part ${part}/${parts}`, format: "plain" });
    if (!sent.ok) throw new Error(`part ${part} to ${target.chatId} failed: ${JSON.stringify(sent)} ${JSON.stringify(fake?.rateLimited)} ${JSON.stringify(fake?.calls.filter((c) => String(c.params.chat_id) === target.chatId).map((c) => c.method + ":" + String(c.outcome)))}`);
  }
}

describe("pacing against the rate-limited stand-in Telegram", () => {
  it("delivers 10 chats' five-part replies with typing, every part in order, without a single 429", async () => {
    const { fake, adapter, pacer, typing } = await start();
    const chats = tenChats(fake);
    await Promise.all(
      chats.map(async (chatId) => {
        typing.begin(`run:${chatId}`, adapter.platform, { chatId });
        await sendParts(adapter, pacer, { chatId }, 5);
        typing.end(`run:${chatId}`);
      }),
    );

    expect(fake.rateLimited).toEqual([]);
    expect(fake.calls.filter((call) => call.outcome === 429)).toEqual([]);
    for (const chatId of chats) {
      expect(fake.sentTo(chatId).map((message) => message.visible)).toEqual(["part 1/5", "part 2/5", "part 3/5", "part 4/5", "part 5/5"]);
      expect(fake.actions.some((action) => action.chatId === chatId && action.action === "typing")).toBe(true);
    }
  });

  it("keeps delivering to other chats while one chat is paused for flood control", async () => {
    const { fake, adapter, pacer } = await start();
    const [stuck, calm] = tenChats(fake);
    if (!stuck || !calm) throw new Error("no chats");
    pacer.pause(adapter.platform, stuck, 60_000);
    const giveUp = new AbortController();
    const stuckReply = sendParts(adapter, pacer, { chatId: stuck }, 1, giveUp.signal);
    let stuckSettled = false;
    void stuckReply.catch(() => undefined).finally(() => (stuckSettled = true));

    await sendParts(adapter, pacer, { chatId: calm }, 5);
    expect(fake.sentTo(calm)).toHaveLength(5);
    expect(stuckSettled).toBe(false);
    expect(fake.sentTo(stuck)).toEqual([]);

    giveUp.abort(new Error("shutting down"));
    await expect(stuckReply).rejects.toThrow("shutting down");
    expect(fake.rateLimited).toEqual([]);
  });

  it("paces the gateway's own replies and typing: 10 chats each get a five-part answer, in order, with no 429", async () => {
    const telegram = await startFakeTelegram();
    fake = telegram;
    harness = await startGatewayHarness(
      { TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "*" },
      undefined,
      { adapters: (config) => [createTelegramAdapter(config.telegram ?? { token: telegram.token, apiRoot: telegram.apiRoot }, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments") })] },
    );
    // Five paragraphs that each need a message of their own (Telegram takes 4,096 characters).
    const paragraph = (n: number) => Array.from({ length: 50 }, (_, i) => `Paragraph ${n} sentence ${i} says something useful.`).join(" ");
    const answer = [1, 2, 3, 4, 5].map(paragraph).join("\n\n");
    const users = Array.from({ length: 10 }, (_, n) => 2001 + n);
    for (const _ of users) harness.llm.enqueue({ kind: "text", text: answer });
    const written = users.map((id) => telegram.userWrites({ from: { id, first_name: `User${id}` }, text: "Tell me everything" }));
    await Promise.all(written.map(({ update }) => telegram.waitForConfirmation(update)));
    const gateway = harness.gateway;
    await Promise.all(users.map((id) => gateway.waitIdle(`agent:main:telegram:dm:${id}`)));

    expect(telegram.rateLimited).toEqual([]);
    expect(telegram.calls.filter((call) => call.outcome !== "ok").map((call) => `${call.method}: ${call.outcome}`)).toEqual([]);
    for (const id of users) {
      const parts = telegram.sentTo(id).map((message) => message.visible);
      expect(parts.map((part) => /\((\d)\/5\)$/.exec(part)?.[1])).toEqual(["1", "2", "3", "4", "5"]);
      expect(parts.map((part) => /Paragraph (\d)/.exec(part)?.[1])).toEqual(["1", "2", "3", "4", "5"]);
    }
    expect(new Set(telegram.actions.map((action) => action.chatId))).toEqual(new Set(users.map(String)));
  });
});
