import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { InboundMessage, OutboundButton, PlatformAdapter } from "@hermes/gateway";
import { startDiscordFake, type DiscordFake } from "../../../test/fakes/discord/index.js";
import { createDiscordAdapter } from "./discord-adapter.js";

let fake: DiscordFake;
let adapter: PlatformAdapter;
let received: InboundMessage[];
let warnings: string[];
/** Polls: what the gateway received is no change of the fake's state that `fake.waitFor` would notice. */
const SLOW_MACHINE = { timeout: 15_000, interval: 20 };

const logger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message), child: () => logger };
const APPROVAL_BUTTONS: OutboundButton[] = [
  { label: "Approve", value: "/approve k3j4h5m6", style: "primary" },
  { label: "Approve for this conversation", value: "/approve k3j4h5m6 always" },
  { label: "Deny", value: "/deny k3j4h5m6", style: "danger" },
];

beforeEach(async () => {
  fake = await startDiscordFake();
  received = [];
  warnings = [];
  adapter = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger, attachmentsDir: "/nonexistent", connectTimeoutMs: 20_000 });
});

afterEach(async () => {
  await adapter.stop();
  await fake.close();
});

async function startAdapter(): Promise<void> {
  await adapter.start({ receive: async (message) => void received.push(message), reportStatus: () => undefined });
  await fake.waitFor(() => fake.connected && fake.gateway.identifies >= 1, "the bot's session");
}

async function sendPrompt(chatId: string, threadId?: string): Promise<string> {
  const sent = await adapter.send({ chatId, ...(threadId ? { threadId } : {}) }, { text: "Run `rm -rf build`?", format: "markdown", buttons: APPROVAL_BUTTONS });
  if (!sent.ok || sent.messageId === undefined) throw new Error(`the prompt was not sent: ${JSON.stringify(sent)}`);
  return sent.messageId;
}

describe("Discord adapter buttons on send", () => {
  it("puts one action row of buttons under the message, each carrying its value as custom_id", async () => {
    const channel = fake.dmChannelId(fake.addUser("ada"));
    const id = await sendPrompt(channel);
    expect(fake.sent[0]?.id).toBe(id);
    expect(fake.sent[0]?.components).toEqual([
      {
        type: 1,
        components: [
          { type: 2, custom_id: "/approve k3j4h5m6", label: "Approve", style: 1 },
          { type: 2, custom_id: "/approve k3j4h5m6 always", label: "Approve for this conversation", style: 2 },
          { type: 2, custom_id: "/deny k3j4h5m6", label: "Deny", style: 4 },
        ],
      },
    ]);
    await adapter.send({ chatId: channel }, { text: "no buttons here", format: "markdown" });
    expect(fake.sent[1]?.body).not.toHaveProperty("components");
  });
});

describe("Discord adapter edits", () => {
  it("edits the text and shows exactly the given buttons, none when absent, without pinging anyone", async () => {
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const general = guild.channels.general ?? "";
    const thread = fake.addThread(general, "planning");
    const id = await sendPrompt(general, thread);

    const decided = await adapter.edit?.({ chatId: general, threadId: thread }, id, { text: "Run `rm -rf build`?\nApproved by @everyone", format: "markdown" });
    expect(decided).toEqual({ ok: true, messageId: id });
    const again = await adapter.edit?.({ chatId: general, threadId: thread }, id, { text: "Run `rm -rf build`?\nApproved by @everyone", format: "markdown" });
    expect(again).toEqual({ ok: true, messageId: id });

    const message = fake.sent[0];
    expect(message?.content).toBe("Run `rm -rf build`?\nApproved by @everyone");
    expect(message?.components).toEqual([]);
    expect(message?.edits).toHaveLength(2);
    expect(message?.edits[0]?.body).toMatchObject({ allowed_mentions: { parse: [] }, components: [] });

    await adapter.edit?.({ chatId: general, threadId: thread }, id, { text: "Ask again", format: "plain", buttons: APPROVAL_BUTTONS.slice(2) });
    expect(fake.sent[0]?.components).toEqual([{ type: 1, components: [{ type: 2, custom_id: "/deny k3j4h5m6", label: "Deny", style: 4 }] }]);
  });

  it("reports a message that is gone as final, a rate limit with its wait, and a dropped connection as retryable", async () => {
    const channel = fake.dmChannelId(fake.addUser("ada"));
    const id = await sendPrompt(channel);

    const gone = await adapter.edit?.({ chatId: channel }, "1000000000000000000", { text: "x", format: "plain" });
    expect(gone).toMatchObject({ ok: false, retryable: false });
    expect(gone?.ok === false && gone.error).toContain("Unknown Message");

    fake.failNextEdit({ kind: "network" });
    expect(await adapter.edit?.({ chatId: channel }, id, { text: "x", format: "plain" })).toMatchObject({ ok: false, retryable: true });

    fake.failNextEdit({ kind: "rateLimit", retryAfterSeconds: 3 });
    const limited = await adapter.edit?.({ chatId: channel }, id, { text: "x", format: "plain" });
    expect(limited).toMatchObject({ ok: false, retryable: true, retryAfterMs: expect.any(Number) });
    expect(limited?.ok === false && limited.retryAfterMs).toBeGreaterThanOrEqual(3_000);
    expect(fake.sent[0]?.content).toBe("Run `rm -rf build`?");
  });
});

describe("Discord adapter button presses", () => {
  it("acknowledges a press in a DM at once and hands it to the gateway as the presser's message", async () => {
    await startAdapter();
    const ada = fake.addUser("ada", { globalName: "Ada L." });
    const channel = fake.dmChannelId(ada);
    const id = await sendPrompt(channel);

    const press = fake.pressButton(ada, id, "/approve k3j4h5m6 always");
    await vi.waitFor(() => expect([received.length, press.callbacks.length]).toEqual([1, 1]), SLOW_MACHINE);

    expect(press.callbacks).toEqual([{ type: 6, flags: 0 }]);
    expect(received[0]).toMatchObject({
      platform: "discord",
      chat: { id: channel, type: "dm" },
      user: { id: ada.id, name: "Ada L.", isBot: false },
      messageId: `int${press.id}`,
      text: "/approve k3j4h5m6 always",
      attachments: [],
      mentionedBot: true,
      action: { messageId: id },
    });
    expect(received[0]?.threadId).toBeUndefined();
  });

  it("places a press in a guild channel or thread where messages there are, and still takes it when the acknowledgement fails", async () => {
    await startAdapter();
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const general = guild.channels.general ?? "";
    const thread = fake.addThread(general, "planning");
    const bob = fake.addUser("bob");
    const inChannel = await sendPrompt(general);
    const inThread = await sendPrompt(general, thread);

    const first = fake.pressButton(bob, inChannel, "/deny k3j4h5m6");
    await vi.waitFor(() => expect(received).toHaveLength(1), SLOW_MACHINE);
    // An interaction older than three seconds is unknown to Discord by the time it is acknowledged.
    fake.failNextInteractionCall("callback", 404);
    fake.pressButton(bob, inThread, "/approve k3j4h5m6");
    await vi.waitFor(() => expect(received).toHaveLength(2), SLOW_MACHINE);

    expect(first.callbacks).toEqual([{ type: 6, flags: 0 }]);
    expect(received[0]).toMatchObject({
      chat: { id: general, type: "group", title: `Lab #general (guild ${guild.id})` },
      user: { id: bob.id, name: "bob" },
      text: "/deny k3j4h5m6",
      mentionedBot: true,
      replyToId: inChannel,
      action: { messageId: inChannel },
    });
    expect(received[0]?.threadId).toBeUndefined();
    expect(received[1]).toMatchObject({ chat: { id: general, type: "group" }, threadId: thread, text: "/approve k3j4h5m6", action: { messageId: inThread } });
    expect(warnings).toContain("could not acknowledge a Discord button press");
  });
});

describe("Discord adapter buttons on a slash command's answer", () => {
  it("sends the buttons through the interaction and edits that answer through its token", async () => {
    await startAdapter();
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const general = guild.channels.general ?? "";
    const ada = fake.addUser("ada");
    const command = fake.runSlashCommand(ada, "retry", { channelId: general });
    await vi.waitFor(() => expect([received.length, command.callbacks.length]).toEqual([1, 1]), SLOW_MACHINE);
    const inbound = received[0];
    const target = { chatId: inbound?.chat.id ?? "", ...(inbound?.replyToId ? { replyToMessageId: inbound.replyToId } : {}) };

    const prompt = await adapter.send(target, { text: "Run `rm -rf build`?", format: "markdown", buttons: APPROVAL_BUTTONS });
    expect(prompt.ok).toBe(true);
    const id = prompt.ok ? (prompt.messageId ?? "") : "";
    expect(await adapter.edit?.(target, id, { text: "Run `rm -rf build`?\nDenied.", format: "markdown" })).toEqual({ ok: true, messageId: id });

    expect(command.replies.map((r) => [r.kind, r.messageId, r.content, r.components.length])).toEqual([
      ["edit", id, "Run `rm -rf build`?", 1],
      ["edit", id, "Run `rm -rf build`?\nDenied.", 0],
    ]);
    expect(fake.sent).toEqual([]);
  });
});
