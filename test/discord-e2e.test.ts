import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { GatewayConfig, PlatformAdapter } from "@hermes/gateway";
import { createDiscordAdapter, type DiscordAdapterDeps } from "@hermes/discord";
import { startDiscordFake, type DiscordFake, type FakeGuild, type FakeUser } from "./fakes/discord/index.js";
import { startGatewayHarness, type GatewayHarness } from "./support/gateway-harness.js";

const INTENTS = (1 << 0) | (1 << 9) | (1 << 12) | (1 << 15);
const BUSY_ACK_START = "Got it. I'm still answering";

let fake: DiscordFake | undefined;
let h: GatewayHarness | undefined;

afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = undefined;
  fake = undefined;
});

interface World {
  fake: DiscordFake;
  h: GatewayHarness;
  guild: FakeGuild;
  general: string;
  ada: FakeUser;
}

type AdapterTuning = Pick<DiscordAdapterDeps, "maxAttachmentBytes" | "restTimeoutMs">;

async function start(env: Record<string, string> = {}, tuning: AdapterTuning = {}): Promise<World> {
  const discord = await startDiscordFake();
  fake = discord;
  const guild = discord.addGuild({ name: "Hermes Lab", channels: ["general"], roles: ["Ops"], botRoles: ["Hermes"] });
  const ada = discord.addUser("ada", { globalName: "Ada" });
  const adapters = (config: GatewayConfig): PlatformAdapter[] => {
    if (!config.discord) throw new Error("DISCORD_BOT_TOKEN did not enable Discord");
    const attachmentsDir = path.join(config.paths.workspace, "attachments", "discord");
    return [createDiscordAdapter(config.discord, { logger: silentLogger, attachmentsDir, ...tuning })];
  };
  const harness = await startGatewayHarness(
    { DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_ALLOWED_USERS: ada.id, ...env },
    undefined,
    { adapters },
  );
  h = harness;
  return { fake: discord, h: harness, guild, general: guild.channels.general ?? "", ada };
}

function userTexts(request: { messages: unknown[] } | undefined): string[] {
  return (request?.messages ?? [])
    .filter((m): m is { role: string; content: unknown } => (m as { role?: unknown }).role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}

const dmKey = (channelId: string): string => `agent:main:discord:dm:${channelId}`;

describe("Discord adapter end to end (discord.js against the fake Discord)", () => {
  it("answers a DM through a tool call, showing typing and asking for the documented intents", async () => {
    const { fake, h, ada } = await start();
    h.llm.enqueue(
      { kind: "tools", calls: [{ name: "memory", arguments: { action: "add", target: "user", content: "Ada drinks tea" } }] },
      { kind: "text", text: "Noted: you drink **tea**." },
    );
    const dm = fake.postDm(ada, "Remember that I drink tea");
    const [reply] = await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey(dm.channelId));

    expect(reply?.channelId).toBe(dm.channelId);
    expect(reply?.content).toBe("Noted: you drink **tea**.");
    expect(reply?.replyTo).toBeUndefined();
    expect(fake.typing).toContain(dm.channelId);
    expect(fake.gateway.intents).toBe(INTENTS);
    expect(h.llm.requests).toHaveLength(2);
    expect(JSON.stringify(h.llm.requests[1]?.messages)).toContain('"role":"tool"');
    expect(await readFile(path.join(h.home, "memory", "users", "discord", ada.id, "USER.md"), "utf8")).toContain("Ada drinks tea");
    expect(fake.unknownRoutes).toEqual([]);
  });

  it("ignores guild messages that do not address the bot and answers a mention in a reply", async () => {
    const { fake, h, general, ada } = await start();
    h.llm.enqueue({ kind: "text", text: "All good here." });
    fake.postMessage(general, ada, "just chatting among ourselves");
    fake.postMessage(general, ada, "@everyone standup in five");
    const asked = fake.postMessage(general, ada, `${fake.mention(fake.bot)} how are things?`);
    const [reply] = await fake.waitForSent(1);
    await h.gateway.waitIdle(`agent:main:discord:group:${general}:${ada.id}`);

    expect(reply?.channelId).toBe(general);
    expect(reply?.replyTo).toBe(asked.id);
    expect(reply?.body.message_reference).toMatchObject({ message_id: asked.id });
    expect(h.llm.requests).toHaveLength(1);
    const texts = userTexts(h.llm.requests[0]);
    expect(texts.at(-1)).toContain("how are things?");
    expect(texts.join("\n")).not.toContain("chatting");
    expect(texts.join("\n")).not.toContain("standup");
    expect(texts.join("\n")).not.toContain(`<@${fake.bot.id}>`);
  });

  it("counts a mention of the bot's role and a reply to the bot as addressing it, but not another role", async () => {
    const { fake, h, guild, general, ada } = await start();
    h.llm.enqueue({ kind: "text", text: "Heard you via my role." }, { kind: "text", text: "Heard your reply." });
    fake.postMessage(general, ada, `${fake.mentionRole(guild.roles.Hermes ?? "")} status?`);
    const [first] = await fake.waitForSent(1);
    fake.postMessage(general, ada, `${fake.mentionRole(guild.roles.Ops ?? "")} can someone restart the build?`);
    const followUp = fake.postMessage(general, ada, "and the deploy?", { replyTo: first?.id, pingRepliedAuthor: false });
    const sent = await fake.waitForSent(2);
    await h.gateway.waitIdle(`agent:main:discord:group:${general}:${ada.id}`);

    expect(sent[1]?.replyTo).toBe(followUp.id);
    expect(h.llm.requests).toHaveLength(2);
    const texts = userTexts(h.llm.requests[1]);
    expect(texts.at(-1)).toContain("and the deploy?");
    expect(texts.join("\n")).not.toContain("restart the build");
  });

  it("routes a thread to its own shared session and answers inside the thread", async () => {
    const { fake, h, general, ada } = await start();
    h.llm.enqueue({ kind: "text", text: "Channel answer." }, { kind: "text", text: "Thread answer." });
    fake.postMessage(general, ada, `${fake.mention(fake.bot)} question in the channel`);
    await fake.waitForSent(1);
    const thread = fake.addThread(general, "planning");
    const inThread = fake.postMessage(thread, ada, `${fake.mention(fake.bot)} question in the thread`);
    const sent = await fake.waitForSent(2);
    const threadKey = `agent:main:discord:group:${general}:${thread}`;
    await h.gateway.waitIdle(threadKey);

    expect(sent[1]).toMatchObject({ channelId: thread, replyTo: inThread.id, content: "Thread answer." });
    expect(await h.gateway.store.sessions.active(threadKey)).toBeDefined();
    expect(await h.gateway.store.sessions.active(`agent:main:discord:group:${general}:${ada.id}`)).toBeDefined();
    const threadTexts = userTexts(h.llm.requests[1]).join("\n");
    expect(threadTexts).toContain("[Ada] question in the thread");
    expect(threadTexts).not.toContain("question in the channel");
  });

  it("splits a 5,000-character reply into messages Discord accepts, code fences balanced", async () => {
    const { fake, h, ada } = await start();
    const code = Array.from({ length: 90 }, (_, i) => `const value${String(i).padStart(2, "0")} = compute(${i}); // keep going`).join("\n");
    const long = `Here is the program:\n\n\`\`\`ts\n${code}\n\`\`\`\n\n${"That is the whole program. ".repeat(45)}`;
    expect(long.length).toBeGreaterThan(5_000);
    h.llm.enqueue({ kind: "text", text: long });
    const dm = fake.postDm(ada, "write me a long program");
    await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey(dm.channelId));

    const parts = fake.sentTo(dm.channelId).map((m) => m.content);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(2_000);
      expect((part.match(/```/g) ?? []).length % 2).toBe(0);
    }
    const joined = parts.join("\n");
    for (let i = 0; i < 90; i += 1) expect(joined).toContain(`const value${String(i).padStart(2, "0")} = compute(${i});`);
  });

  it("never lets the model ping @everyone, roles or users", async () => {
    const { fake, h, guild, general, ada } = await start();
    const text = `Meeting now, @everyone and @here! ${fake.mentionRole(guild.roles.Ops ?? "")} ${fake.mention(ada)}`;
    h.llm.enqueue({ kind: "text", text });
    const asked = fake.postMessage(general, ada, `${fake.mention(fake.bot)} announce the meeting to everyone`);
    const [reply] = await fake.waitForSent(1);

    expect(reply?.content).toContain("@everyone");
    expect(reply?.replyTo).toBe(asked.id);
    expect(reply?.body.allowed_mentions).toEqual({ parse: [], replied_user: false });
    expect(reply?.pings).toEqual({ everyone: false, users: [], roles: [], repliedUser: false });
  });

  it("resumes after the websocket drops mid-conversation and answers every message exactly once", async () => {
    const { fake, h, ada } = await start();
    const dmChannel = fake.dmChannelId(ada);
    h.llm.enqueue(
      () => {
        // While the agent works: the connection drops, the user writes again, and the resume replays a message
        // the client already had.
        fake.dropConnection({ replayAlreadySent: 1 });
        fake.postDm(ada, "second question");
        return { kind: "text", text: "First answer." };
      },
      { kind: "text", text: "Second answer." },
    );
    fake.postDm(ada, "first question");
    await fake.waitFor(() => fake.sent.some((m) => m.content === "Second answer."), "the answer to the second question");
    await h.gateway.waitIdle(dmKey(dmChannel));

    const answers = fake.sentTo(dmChannel).map((m) => m.content).filter((c) => !c.startsWith(BUSY_ACK_START));
    expect(answers).toEqual(["First answer.", "Second answer."]);
    expect(fake.gateway).toMatchObject({ identifies: 1, resumes: 1, refusedResumes: 0 });
    // At least the first question again (already received) and the second one (missed while away).
    expect(fake.gateway.replayedEvents).toBeGreaterThanOrEqual(2);
    expect(h.llm.requests).toHaveLength(2);
    expect(userTexts(h.llm.requests[1]).join("\n")).toContain("second question");
  });

  it("identifies again when Discord refuses to resume, and keeps answering once per message", async () => {
    const { fake, h, ada } = await start();
    const dmChannel = fake.dmChannelId(ada);
    h.llm.enqueue({ kind: "text", text: "Before." }, { kind: "text", text: "After." });
    fake.postDm(ada, "before the outage");
    await fake.waitForSent(1);
    fake.refuseNextResume();
    fake.dropConnection();
    // discord.js spaces IDENTIFYs five seconds apart, as Discord requires.
    await fake.waitFor(() => fake.gateway.identifies === 2 && fake.connected, "a fresh IDENTIFY", 20_000);
    fake.postDm(ada, "after the outage");
    await fake.waitForSent(2);
    await h.gateway.waitIdle(dmKey(dmChannel));

    expect(fake.sentTo(dmChannel).map((m) => m.content)).toEqual(["Before.", "After."]);
    expect(fake.gateway.refusedResumes).toBe(1);
  });

  it("gives an unknown user a pairing code in their DM and ignores them in a guild", async () => {
    const { fake, h, general } = await start({ DISCORD_ALLOWED_USERS: "" });
    const stranger = fake.addUser("stranger");
    const inGuild = fake.postMessage(general, stranger, `${fake.mention(fake.bot)} hello?`);
    const dm = fake.postDm(stranger, "hello?");
    const [reply] = await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey(dm.channelId));

    expect(reply?.channelId).toBe(dm.channelId);
    const code = /pairing code: ([A-Z0-9]{8})/i.exec(reply?.content ?? "")?.[1];
    expect(code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(reply?.content).toContain(`hermes pairing approve discord ${code}`);
    expect(fake.sentTo(general)).toEqual([]);
    expect(h.llm.requests).toHaveLength(0);
    await vi.waitFor(async () => {
      const records = await h.gateway.store.inbound.recent(10);
      expect(records.find((r) => r.messageId === inGuild.id)?.status).toBe("ignored");
    });
  });

  it("ignores other bots and its own messages", async () => {
    const { fake, h, general, ada } = await start();
    const helper = fake.addUser("helper-bot", { bot: true });
    h.llm.enqueue({ kind: "text", text: "One." }, { kind: "text", text: "Two." });
    fake.postMessage(general, helper, `${fake.mention(fake.bot)} hello fellow bot`);
    fake.postDm(helper, "hello fellow bot");
    const first = fake.postMessage(general, ada, `${fake.mention(fake.bot)} one`);
    await fake.waitForSent(1);
    // Its own reply came back as a MESSAGE_CREATE before this one, on the same channel.
    const second = fake.postMessage(general, ada, `${fake.mention(fake.bot)} two`);
    await fake.waitForSent(2);
    await h.gateway.waitIdle(`agent:main:discord:group:${general}:${ada.id}`);

    const received = (await h.gateway.store.inbound.recent(20)).map((r) => r.messageId).sort();
    expect(received).toEqual([first.id, second.id].sort());
    expect(h.llm.requests).toHaveLength(2);
  });

  it("downloads attachments into the workspace and tells the model about files it refused", async () => {
    const { fake, h, ada } = await start({}, { maxAttachmentBytes: 1024 });
    h.llm.enqueue({ kind: "text", text: "Got your files." });
    const dm = fake.postDm(ada, "see attached", {
      attachments: [
        { name: "notes.txt", data: "hello from a file", contentType: "text/plain" },
        { name: "huge.bin", data: "x", declaredSize: 50 * 1024 * 1024 },
        { name: "../../escape.txt", data: Buffer.alloc(4096), contentType: "text/plain", declaredSize: 10 },
      ],
    });
    await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey(dm.channelId));

    const text = userTexts(h.llm.requests[0]).join("\n");
    const saved = /notes\.txt.*saved at (\S+notes\.txt)/.exec(text)?.[1] ?? "";
    expect(saved.startsWith(path.join(h.home, "workspace", "attachments"))).toBe(true);
    expect(await readFile(saved, "utf8")).toBe("hello from a file");
    expect(text).toContain("huge.bin (50 MB) was not downloaded: files over 1 KB are not accepted");
    expect(text).toContain("../../escape.txt (4 KB) was not downloaded");
  });

  it("waits out a rate limit and delivers the reply once", async () => {
    const { fake, h, ada } = await start();
    fake.failNextSend({ kind: "rateLimit", retryAfterSeconds: 0.05 });
    h.llm.enqueue({ kind: "text", text: "Patience pays." });
    const dm = fake.postDm(ada, "hello");
    await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey(dm.channelId));

    expect(fake.sentTo(dm.channelId).map((m) => m.content)).toEqual(["Patience pays."]);
  });

  it("retries a reply whose answer never came back without posting it twice", async () => {
    const { fake, h, ada } = await start({}, { restTimeoutMs: 1_000 });
    // Discord creates the reply but answers after the client timed out, so the gateway sends it again.
    fake.failNextSend({ kind: "lateAnswer", delayMs: 60_000 });
    h.llm.enqueue({ kind: "text", text: "Only once, please." });
    const dm = fake.postDm(ada, "hello");
    await fake.waitFor(() => fake.nonceReplays.length > 0, "the retried send");
    await h.gateway.waitIdle(dmKey(dm.channelId));

    expect(fake.sentTo(dm.channelId).map((m) => m.content)).toEqual(["Only once, please."]);
    expect(fake.nonceReplays).toEqual([fake.sent[0]?.id]);
  });
});
