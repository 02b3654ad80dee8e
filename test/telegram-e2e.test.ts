import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig } from "@hermes/gateway";
import { createTelegramAdapter } from "@hermes/telegram";
import { forumChat, groupChat, startFakeTelegram, type FakeTelegram, type UserMessageOptions } from "./fakes/telegram/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const TOKEN = "123456:TEST-token";
const DM_KEY = "agent:main:telegram:dm:7";
let fake: FakeTelegram | undefined;
let harness: GatewayHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

interface Started {
  fake: FakeTelegram;
  h: GatewayHarness;
  attachmentsDir: string;
}

async function start(env: Record<string, string> = {}, maxAttachmentBytes = 20 * 1024 * 1024): Promise<Started> {
  const telegram = await startFakeTelegram({ token: TOKEN });
  fake = telegram;
  let attachmentsDir = "";
  const adapterFor = (config: GatewayConfig) => {
    if (!config.telegram) throw new Error("TELEGRAM_BOT_TOKEN did not configure Telegram");
    attachmentsDir = path.join(config.paths.workspace, "attachments");
    return createTelegramAdapter(config.telegram, { logger: silentLogger, attachmentsDir, maxAttachmentBytes });
  };
  const h = await startGatewayHarness(
    { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: telegram.apiRoot, HERMES_ALLOWED_USERS: "telegram:7", HERMES_HTTP_PORT: "0", ...env },
    undefined,
    { adapters: (config) => [adapterFor(config)], http: true },
  );
  harness = h;
  return { fake: telegram, h, attachmentsDir };
}

/** A user writes; resolves once the adapter confirmed the update, which it does only after the gateway persisted it. */
async function say(telegram: FakeTelegram, options: UserMessageOptions) {
  const written = telegram.userWrites(options);
  await telegram.waitForConfirmation(written.update);
  return written;
}

function lastUserText(request: { messages: unknown[] } | undefined): string {
  const users = (request?.messages ?? []).filter((m): m is { role: string; content: unknown } => (m as { role: string }).role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("Telegram end to end (grammY against the fake Bot API)", () => {
  it("answers a private chat through a tool call, with typing, HTML and the command menu", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "tools", calls: [{ name: "think", arguments: { thought: "2+2" } }] }, { kind: "text", text: "It is **4**." });
    await say(fake, { text: "What is 2+2?" });
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.sentTo(7).map((s) => [s.text, s.visible, s.parseMode, s.replyToMessageId, s.threadId])).toEqual([
      ["It is <b>4</b>.", "It is 4.", "HTML", undefined, undefined],
    ]);
    expect(h.llm.requests).toHaveLength(2);
    expect(lastUserText(h.llm.requests[0])).toContain("What is 2+2?");
    expect(JSON.stringify(h.llm.requests[1]?.messages)).toContain('"role":"tool"');
    expect(fake.actions.some((a) => a.chatId === "7" && a.action === "typing")).toBe(true);
    expect(fake.commands?.map((c) => c.command)).toEqual(expect.arrayContaining(["new", "reset", "stop", "help", "respond"]));
    expect(fake.callsOf("deleteWebhook")).toHaveLength(1);

    await say(fake, { text: "/start" });
    await h.gateway.waitIdle(DM_KEY);
    expect(fake.sentTo(7).at(-1)?.visible).toContain("/help");
  });

  it("ignores group chatter and commands for other bots; answers a mention and a reply to the bot, quoting them", async () => {
    const { fake, h } = await start();
    const group = groupChat(-100, "Friends");
    const key = "agent:main:telegram:group:-100:7";
    await say(fake, { chat: group, text: "just chatting" });
    await say(fake, { chat: group, text: "/help@other_bot" });
    await fake.waitForConfirmation(fake.memberJoins(group, { id: 8, first_name: "Bob" }));
    await h.gateway.waitIdle(key);
    expect(h.llm.requests).toHaveLength(0);
    expect(fake.sentTo(-100)).toEqual([]);

    h.llm.enqueue({ kind: "text", text: "You called?" }, { kind: "text", text: "Still here." });
    const mention = await say(fake, { chat: group, text: "@hermes_test_bot help me" });
    await h.gateway.waitIdle(key);
    const botMessage = fake.sentTo(-100)[0]?.result;
    if (!botMessage) throw new Error("the bot did not answer the mention");
    const reply = await say(fake, { chat: group, text: "and again", replyTo: botMessage });
    await h.gateway.waitIdle(key);

    expect(fake.sentTo(-100).map((s) => [s.visible, s.replyToMessageId])).toEqual([
      ["You called?", mention.message.message_id],
      ["Still here.", reply.message.message_id],
    ]);
    expect(h.llm.requests.map((r) => JSON.stringify(r.messages)).join()).not.toContain("just chatting");

    await say(fake, { chat: group, text: "/help@hermes_test_bot" });
    await h.gateway.waitIdle(key);
    expect(fake.sentTo(-100).at(-1)?.visible).toContain("/new");
  });

  it("keeps forum topics apart and answers in the topic asked", async () => {
    const { fake, h } = await start();
    const forum = forumChat(-1001, "Forum");
    const alpha = fake.createTopic(forum, "Alpha");
    const beta = fake.createTopic(forum, "Beta");
    h.llm.enqueue({ kind: "text", text: "Alpha answer" }, { kind: "text", text: "Beta answer" });

    const inAlpha = await say(fake, { chat: forum, topic: alpha.threadId, text: "@hermes_test_bot first in alpha" });
    await h.gateway.waitIdle(`agent:main:telegram:group:-1001:${alpha.threadId}`);
    const inBeta = await say(fake, { chat: forum, topic: beta.threadId, text: "@hermes_test_bot first in beta" });
    await h.gateway.waitIdle(`agent:main:telegram:group:-1001:${beta.threadId}`);

    expect(fake.sentTo(-1001).map((s) => [s.visible, s.threadId, s.replyToMessageId])).toEqual([
      ["Alpha answer", alpha.threadId, inAlpha.message.message_id],
      ["Beta answer", beta.threadId, inBeta.message.message_id],
    ]);
    expect(lastUserText(h.llm.requests[1])).toContain("first in beta");
    expect(JSON.stringify(h.llm.requests[1]?.messages)).not.toContain("first in alpha");
    // Typing shares the chat's send limits: beta's may be skipped right after alpha's answer, never sent outside a topic.
    const typingTopics = fake.actions.filter((a) => a.chatId === "-1001").map((a) => a.threadId);
    expect(typingTopics).toContain(alpha.threadId);
    expect(typingTopics.every((threadId) => threadId === alpha.threadId || threadId === beta.threadId)).toBe(true);
  });

  it("splits a 10,000-character reply into messages Telegram accepts, with markers and balanced code blocks", async () => {
    const { fake, h } = await start();
    const prose = (from: number, count: number) => Array.from({ length: count }, (_, i) => `Sentence ${from + i} explains a *detail* of the plan in plain words.`);
    const code = Array.from({ length: 90 }, (_, i) => `const v${i} = a < b && c > d; // line ${i}`);
    const reply = [prose(0, 60).join(" "), "```ts", ...code, "```", prose(60, 60).join(" ")].join("\n");
    expect(reply.length).toBeGreaterThanOrEqual(10_000);
    h.llm.enqueue({ kind: "text", text: reply });
    await say(fake, { text: "Write me something long" });
    await h.gateway.waitIdle(DM_KEY);

    const sent = fake.sentTo(7);
    expect(sent.length).toBe(3);
    expect(fake.callsOf("sendMessage").map((c) => c.outcome)).toEqual(["ok", "ok", "ok"]);
    for (const [index, message] of sent.entries()) {
      expect(message.parseMode).toBe("HTML");
      expect(message.visible.length).toBeLessThanOrEqual(4096);
      expect(message.visible.endsWith(`(${index + 1}/3)`)).toBe(true);
      expect(message.text.split("<pre>").length).toBe(message.text.split("</pre>").length);
    }
    const codeSeen = sent.flatMap((s) => [...s.text.matchAll(/<pre><code class="language-ts">([\s\S]*?)<\/code><\/pre>/g)].flatMap((m) => (m[1] ?? "").split("\n")));
    expect(codeSeen.map((line) => line.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"))).toEqual(code);
    const allText = sent.map((s) => s.visible).join("\n");
    for (let i = 0; i < 120; i += 1) expect(allText).toContain(`Sentence ${i} explains`);
  });

  it("re-sends a reply as plain text when Telegram rejects its markup", async () => {
    const { fake, h } = await start();
    fake.failNext("sendMessage", { error_code: 400, description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 4" }, { when: (p) => p.parse_mode === "HTML" });
    h.llm.enqueue({ kind: "text", text: "Use **bold** and <x> & more" });
    await say(fake, { text: "format something" });
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.callsOf("sendMessage").map((c) => [c.outcome, c.params.parse_mode])).toEqual([
      [400, "HTML"],
      ["ok", undefined],
    ]);
    expect(fake.sentTo(7).map((s) => s.text)).toEqual(["Use **bold** and <x> & more"]);
  });

  it("answers an update Telegram sends twice only once, also after a restart", async () => {
    const { fake, h } = await start();
    h.llm.enqueue({ kind: "text", text: "once" }, { kind: "text", text: "twice" });
    const { update } = await say(fake, { text: "hi" });
    await h.gateway.waitIdle(DM_KEY);
    fake.redeliver(update);
    await fake.waitForConfirmation(update);
    await h.gateway.waitIdle(DM_KEY);
    await h.restart();
    fake.redeliver(update);
    await fake.waitForConfirmation(update);
    await h.gateway.waitIdle(DM_KEY);

    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["once"]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("gives an unknown user a pairing code in private, and posts none in a group", async () => {
    const { fake, h } = await start({ HERMES_ALLOWED_USERS: "" });
    const stranger = { id: 99, first_name: "Stranger" };
    await say(fake, { from: stranger, text: "hello?" });
    await h.gateway.waitIdle("agent:main:telegram:dm:99");
    const reply = fake.sentTo(99).map((s) => s.visible).join("\n");
    const code = /pairing code: ([A-Z0-9]{8})/i.exec(reply)?.[1];
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(reply).toContain(`hermes pairing approve telegram ${code}`);

    await say(fake, { chat: groupChat(-200, "Open group"), from: stranger, text: "@hermes_test_bot hi" });
    await h.gateway.waitIdle("agent:main:telegram:group:-200:99");
    expect(fake.sentTo(-200)).toEqual([]);
    expect(h.llm.requests).toHaveLength(0);
  });

  it("takes webhook updates only with the right secret token, and ignores edits", async () => {
    const webhookUrl = "https://bot.example.invalid/telegram/webhook";
    const { fake, h } = await start({ TELEGRAM_WEBHOOK_URL: webhookUrl, TELEGRAM_WEBHOOK_SECRET: "s3cret-token" });
    expect(fake.webhook).toEqual({ url: webhookUrl, secret_token: "s3cret-token", allowed_updates: ["message", "channel_post", "callback_query"] });
    expect(fake.callsOf("getUpdates")).toHaveLength(0);
    // The public URL ends at a reverse proxy; the gateway listens on loopback under the same path.
    const local = `http://127.0.0.1:${h.gateway.httpAddress?.port}/telegram/webhook`;
    h.llm.enqueue({ kind: "text", text: "Hello over the webhook" });
    const { update, message } = fake.userWrites({ text: "hi via webhook" });

    expect((await fake.deliverToWebhook(update, { url: local, secret: "wrong-token" })).status).toBe(403);
    expect((await fake.deliverToWebhook(update, { url: local, secret: null })).status).toBe(401);
    await h.gateway.waitIdle(DM_KEY);
    expect(h.llm.requests).toHaveLength(0);

    expect((await fake.deliverToWebhook(update, { url: local })).status).toBe(200);
    await h.gateway.waitIdle(DM_KEY);
    expect((await fake.deliverToWebhook(update, { url: local })).status).toBe(200);
    expect((await fake.deliverToWebhook(fake.userEdits(message, "edited text"), { url: local })).status).toBe(200);
    await h.gateway.waitIdle(DM_KEY);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["Hello over the webhook"]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("refuses an oversized document with a message, and hands a small photo to the agent", async () => {
    const { fake, h, attachmentsDir } = await start({}, 1024);
    h.llm.enqueue({ kind: "text", text: "That file is too large for me." }, { kind: "text", text: "Still too large." }, { kind: "text", text: "A nice picture." });
    await say(fake, { caption: "please summarise", document: { content: Buffer.alloc(5000, 1), name: "report.pdf", mimeType: "application/pdf" } });
    await h.gateway.waitIdle(DM_KEY);
    expect(fake.callsOf("getFile")).toHaveLength(0);
    expect(lastUserText(h.llm.requests[0])).toContain("please summarise");
    expect(lastUserText(h.llm.requests[0])).toContain('[The file "report.pdf" (4.9 KB) was not accepted: files larger than 1 KB are refused.');

    // A document whose stated size is wrong is caught by the size of the download.
    await say(fake, { document: { content: Buffer.alloc(5000, 2), name: "sneaky.bin", advertisedSize: 100 } });
    await h.gateway.waitIdle(DM_KEY);
    expect(lastUserText(h.llm.requests[1])).toContain('[The file "sneaky.bin" (4.9 KB) was not accepted');

    const photo = Buffer.from("not really a jpeg, but small");
    await say(fake, { caption: "what is this?", photo: { content: photo } });
    await h.gateway.waitIdle(DM_KEY);
    const saved = (await readdir(attachmentsDir)).filter((name) => name.endsWith("photo.jpg"));
    expect(saved).toHaveLength(1);
    expect(await readFile(path.join(attachmentsDir, saved[0] ?? ""))).toEqual(photo);
    expect(lastUserText(h.llm.requests[2])).toContain(path.join(attachmentsDir, saved[0] ?? ""));
    expect(await readdir(attachmentsDir)).toEqual(saved);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["That file is too large for me.", "Still too large.", "A nice picture."]);
  });

  it("honours 429 retry_after: the one retry comes after the wait Telegram asked for", async () => {
    const { fake, h } = await start();
    // The fake refuses every call until retry_after has passed, so a retry that came too early would show a second 429.
    fake.floodWait("sendMessage", 1);
    h.llm.enqueue({ kind: "text", text: "Worth the wait." });
    await say(fake, { text: "hi" });
    await h.gateway.waitIdle(DM_KEY);
    expect(fake.callsOf("sendMessage").map((c) => c.outcome)).toEqual([429, "ok"]);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["Worth the wait."]);
  });
});
