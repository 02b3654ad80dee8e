import { access } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createTelegramAdapter } from "@hermes/telegram";
import { ADA, groupChat, privateChat, startFakeTelegram, type FakeTelegram, type UserMessageOptions } from "./fakes/telegram/index.js";
import type { RecordedRequest } from "./fakes/llm-server.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const TOKEN = "123456:TEST-token";
const BOB = { id: 8, first_name: "Bob", username: "bob" };
const ADA_DM = "agent:main:telegram:dm:7";
const BOB_DM = "agent:main:telegram:dm:8";
let fake: FakeTelegram | undefined;
let harness: GatewayHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

async function start(env: Record<string, string> = {}): Promise<{ fake: FakeTelegram; h: GatewayHarness }> {
  const telegram = await startFakeTelegram({ token: TOKEN });
  fake = telegram;
  const adapterFor = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    return createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir: path.join(config.paths.workspace, "attachments") });
  };
  const h = await startGatewayHarness(
    { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7,telegram:8", HERMES_HTTP_PORT: "0", ...env },
    undefined,
    { adapters: (config) => [adapterFor(config)], http: true },
  );
  harness = h;
  return { fake: telegram, h };
}

async function say(telegram: FakeTelegram, options: UserMessageOptions): Promise<void> {
  await telegram.waitForConfirmation(telegram.userWrites(options).update);
}

/** The LLM requests made while `turn` ran (the fake records every request in order). */
async function requestsDuring(h: GatewayHarness, turn: () => Promise<void>): Promise<RecordedRequest[]> {
  const before = h.llm.requests.length;
  await turn();
  return h.llm.requests.slice(before);
}

const everything = (requests: readonly RecordedRequest[]): string => JSON.stringify(requests.map((request) => request.body));
const remember = (target: "memory" | "user", content: string) => ({ kind: "tools" as const, calls: [{ name: "memory", arguments: { action: "add", target, content } }] });

describe("memory is scoped to the person (Telegram)", () => {
  it("keeps a fact one person saved in a DM out of the other's requests; /memory shows it, /forget confirm erases it", async () => {
    const { fake, h } = await start();
    h.llm.enqueue(remember("user", "Ada's secret project is Nightingale"), { kind: "text", text: "Noted." });
    await say(fake, { text: "Remember that my secret project is Nightingale" });
    await h.gateway.waitIdle(ADA_DM);
    await access(path.join(h.home, "memory", "users", "telegram", "7", "USER.md"));

    h.llm.enqueue({ kind: "text", text: "Hi Bob." });
    const bobs = await requestsDuring(h, async () => {
      await say(fake, { chat: privateChat(BOB), from: BOB, text: "Hello, what do you know?" });
      await h.gateway.waitIdle(BOB_DM);
    });
    expect(bobs).toHaveLength(1);
    expect(everything(bobs)).not.toContain("Nightingale");

    // Ada's own next session has the fact in its prompt: the scope works, it is not merely empty.
    await say(fake, { text: "/new" });
    await h.gateway.waitIdle(ADA_DM);
    h.llm.enqueue({ kind: "text", text: "The one you told me about." });
    const adas = await requestsDuring(h, async () => {
      await say(fake, { text: "What is my project?" });
      await h.gateway.waitIdle(ADA_DM);
    });
    expect(everything(adas)).toContain("Nightingale");

    await say(fake, { chat: privateChat(BOB), from: BOB, text: "/memory" });
    await h.gateway.waitIdle(BOB_DM);
    expect(fake.sentTo(8).at(-1)?.visible).toContain("nothing saved");

    await say(fake, { text: "/memory" });
    await h.gateway.waitIdle(ADA_DM);
    expect(fake.sentTo(7).at(-1)?.visible).toContain("Ada's secret project is Nightingale");

    await say(fake, { text: "/forget" });
    await h.gateway.waitIdle(ADA_DM);
    expect(fake.sentTo(7).at(-1)?.visible).toContain("/forget confirm");
    await access(path.join(h.home, "memory", "users", "telegram", "7", "USER.md"));

    await say(fake, { text: "/forget confirm" });
    await h.gateway.waitIdle(ADA_DM);
    expect(fake.sentTo(7).at(-1)?.visible).toContain("erased");
    await expect(access(path.join(h.home, "memory", "users", "telegram", "7", "USER.md"))).rejects.toThrow();

    await say(fake, { text: "/memory" });
    await h.gateway.waitIdle(ADA_DM);
    expect(fake.sentTo(7).at(-1)?.visible).toContain("nothing saved");
    h.llm.enqueue({ kind: "text", text: "I don't know." });
    const afterForget = await requestsDuring(h, async () => {
      await say(fake, { text: "And now?" });
      await h.gateway.waitIdle(ADA_DM);
    });
    expect(everything(afterForget)).not.toContain("Nightingale");
  });

  it("keeps a note saved in a group with per-user sessions out of another member's requests", async () => {
    const { fake, h } = await start();
    const group = groupChat(-100, "Friends");
    const adaKey = "agent:main:telegram:group:-100:7";
    const bobKey = "agent:main:telegram:group:-100:8";
    h.llm.enqueue(remember("memory", "Ada plans the offsite in Porto"), { kind: "text", text: "Saved." });
    await say(fake, { chat: group, from: ADA, text: "@hermes_test_bot remember the offsite is in Porto" });
    await h.gateway.waitIdle(adaKey);

    h.llm.enqueue({ kind: "text", text: "No idea, Bob." });
    const bobs = await requestsDuring(h, async () => {
      await say(fake, { chat: group, from: BOB, text: "@hermes_test_bot where is the offsite?" });
      await h.gateway.waitIdle(bobKey);
    });
    expect(bobs).toHaveLength(1);
    expect(everything(bobs)).not.toContain("Porto");

    // The note is Ada's: her DM (a new session in her own scope) sees it.
    h.llm.enqueue({ kind: "text", text: "Porto." });
    const adas = await requestsDuring(h, async () => {
      await say(fake, { text: "Where is the offsite?" });
      await h.gateway.waitIdle(ADA_DM);
    });
    expect(everything(adas)).toContain("Porto");
  });

  it("in a shared group the notes are the chat's and USER.md the sender's; /forget confirm keeps the chat's notes", async () => {
    const { fake, h } = await start({ HERMES_GROUP_SESSIONS: "shared" });
    const group = groupChat(-200, "Team");
    const key = "agent:main:telegram:group:-200";
    h.llm.enqueue(remember("memory", "the team ships on Tuesdays"), remember("user", "Ada prefers bullet points"), { kind: "text", text: "Saved." });
    await say(fake, { chat: group, from: ADA, text: "@hermes_test_bot we ship on Tuesdays; I like bullet points" });
    await h.gateway.waitIdle(key);
    const chatNotes = path.join(h.home, "memory", "chats", "telegram", "-200", "MEMORY.md");
    const adaProfile = path.join(h.home, "memory", "users", "telegram", "7", "USER.md");
    await access(chatNotes);
    await access(adaProfile);

    await say(fake, { chat: group, from: BOB, text: "/memory@hermes_test_bot" });
    await h.gateway.waitIdle(key);
    const bobsView = fake.sentTo(-200).at(-1)?.visible ?? "";
    expect(bobsView).toContain("the team ships on Tuesdays");
    expect(bobsView).not.toContain("bullet points");

    await say(fake, { chat: group, from: ADA, text: "/forget@hermes_test_bot" });
    await h.gateway.waitIdle(key);
    expect(fake.sentTo(-200).at(-1)?.visible).toContain("The notes this group shares are kept.");
    await say(fake, { chat: group, from: ADA, text: "/forget@hermes_test_bot confirm" });
    await h.gateway.waitIdle(key);
    await expect(access(adaProfile)).rejects.toThrow();
    await access(chatNotes);
  });
});
