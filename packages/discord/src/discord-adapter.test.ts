import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { AdapterStatus, InboundMessage, PlatformAdapter } from "@hermes/gateway";
import { startDiscordFake, type DiscordFake } from "../../../test/fakes/discord/index.js";
import { createDiscordAdapter } from "./discord-adapter.js";

let fake: DiscordFake;
let adapter: PlatformAdapter;
/** vi.waitFor gives up after 1 s by default; a loaded machine can take longer to pass a message through the fake. */
const SLOW_MACHINE = { timeout: 15_000, interval: 20 };

beforeEach(async () => {
  fake = await startDiscordFake();
  adapter = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: "/nonexistent" });
});

afterEach(async () => {
  await adapter.stop();
  await fake.close();
});

describe("Discord adapter sending", () => {
  it("posts to the channel, or to the thread, quoting the message it answers without pinging anyone", async () => {
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const general = guild.channels.general ?? "";
    const thread = fake.addThread(general, "planning");
    const ada = fake.addUser("ada");
    const asked = fake.postMessage(thread, ada, "question");

    const inChannel = await adapter.send({ chatId: general }, { text: "hi @everyone", format: "markdown" });
    const inThread = await adapter.send({ chatId: general, threadId: thread, replyToMessageId: asked.id }, { text: "answer", format: "markdown" });

    expect(inChannel).toEqual({ ok: true, messageId: fake.sent[0]?.id });
    expect(inThread.ok).toBe(true);
    expect(fake.sent.map((m) => [m.channelId, m.content, m.replyTo])).toEqual([
      [general, "hi @everyone", undefined],
      [thread, "answer", asked.id],
    ]);
    expect(fake.sent[0]?.pings.everyone).toBe(false);
  });

  it("shows typing in the thread when there is one", async () => {
    const guild = fake.addGuild({ name: "Lab", channels: ["general"] });
    const thread = fake.addThread(guild.channels.general ?? "", "planning");
    await adapter.sendTyping?.({ chatId: guild.channels.general ?? "", threadId: thread });
    expect(fake.typing).toEqual([thread]);
  });

  it("reports a rejection as final and a dropped connection or server error as retryable", async () => {
    const ada = fake.addUser("ada");
    const channel = fake.dmChannelId(ada);
    const tooLong = await adapter.send({ chatId: channel }, { text: "x".repeat(2001), format: "markdown" });
    expect(tooLong).toMatchObject({ ok: false, retryable: false });
    expect(!tooLong.ok && tooLong.error).toContain("Must be 2000 or fewer in length.");

    fake.failNextSend({ kind: "network" }, { kind: "status", status: 503 });
    expect(await adapter.send({ chatId: channel }, { text: "hi", format: "markdown" })).toMatchObject({ ok: false, retryable: true });
    expect(await adapter.send({ chatId: channel }, { text: "hi", format: "markdown" })).toMatchObject({ ok: false, retryable: true });

    const missing = await adapter.send({ chatId: "1000000000000000000" }, { text: "hi", format: "plain" });
    expect(missing).toMatchObject({ ok: false, retryable: false });
    expect(!missing.ok && missing.error).toContain("Unknown Channel");
  });

  it("gets the first message back when a send that timed out is retried, instead of posting it twice", async () => {
    const impatient = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: "/nonexistent", restTimeoutMs: 1_000 });
    const channel = fake.dmChannelId(fake.addUser("ada"));
    const target = { chatId: channel };
    // Discord creates the message, but its answer arrives long after the client gave up waiting.
    fake.failNextSend({ kind: "lateAnswer", delayMs: 60_000 });

    expect(await impatient.send(target, { text: "Done.", format: "markdown" })).toMatchObject({ ok: false, retryable: true });
    expect(fake.sent).toHaveLength(1);
    const retried = await impatient.send(target, { text: "Done.", format: "markdown" });

    expect(retried).toEqual({ ok: true, messageId: fake.sent[0]?.id });
    expect(fake.sent).toHaveLength(1);
    expect(fake.nonceReplays).toEqual([fake.sent[0]?.id]);
    expect(fake.sent[0]?.body).toMatchObject({ enforce_nonce: true, nonce: expect.any(String) });
    // The same words later are a new reply, not a retry.
    expect(await impatient.send(target, { text: "Done.", format: "markdown" })).toMatchObject({ ok: true });
    expect(fake.sentTo(channel).map((m) => m.content)).toEqual(["Done.", "Done."]);
  });

  it("makes one message of a part resent with the same idempotency key, also from a fresh adapter after a restart", async () => {
    const impatient = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: "/nonexistent", restTimeoutMs: 1_000 });
    const restarted = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger: silentLogger, attachmentsDir: "/nonexistent" });
    const target = { chatId: fake.dmChannelId(fake.addUser("ada")) };
    const part = { text: "Part one.", format: "markdown" as const, idempotencyKey: "d7p0" };
    fake.failNextSend({ kind: "lateAnswer", delayMs: 60_000 });

    expect(await impatient.send(target, part)).toMatchObject({ ok: false, retryable: true, ambiguous: true });
    expect(await impatient.send(target, part)).toEqual({ ok: true, messageId: fake.sent[0]?.id });
    expect(await restarted.send(target, part)).toEqual({ ok: true, messageId: fake.sent[0]?.id });
    expect(fake.sent).toHaveLength(1);
    expect(impatient.deliveryGuarantee).toBe("exactly-once");
    // Another part with the same words is another message.
    expect(await restarted.send(target, { ...part, idempotencyKey: "d8p0" })).toMatchObject({ ok: true });
    expect(fake.sentTo(target.chatId).map((m) => m.content)).toEqual(["Part one.", "Part one."]);
  });

  it("flags a connection dropped after the request was read as ambiguous", async () => {
    const target = { chatId: fake.dmChannelId(fake.addUser("ada")) };
    fake.failNextSend({ kind: "network" });
    expect(await adapter.send(target, { text: "hi", format: "plain", idempotencyKey: "d1p0" })).toMatchObject({ ok: false, retryable: true, ambiguous: true });
  });

  it("can reply before the gateway connection is up and after it is stopped", async () => {
    const ada = fake.addUser("ada");
    await adapter.stop();
    expect(await adapter.send({ chatId: fake.dmChannelId(ada) }, { text: "late reply", format: "markdown" })).toMatchObject({ ok: true });
  });
});

describe("Discord adapter connecting", () => {
  it("starts without throwing when the token is wrong, and keeps retrying with a hint", async () => {
    const statuses: AdapterStatus[] = [];
    const wrong = createDiscordAdapter(
      { token: "not-the-token", apiUrl: fake.apiUrl },
      { logger: silentLogger, attachmentsDir: "/nonexistent", reconnectBackoff: { firstDelayMs: 10, maxDelayMs: 20 } },
    );
    try {
      await wrong.start({ receive: async () => undefined, reportStatus: (status) => void statuses.push(status) });
      expect(statuses[0]).toEqual({ state: "connecting" });
      expect(statuses[1]).toEqual({ state: "retrying", error: expect.stringMatching(/rejected the bot token.*DISCORD_BOT_TOKEN/), retryAt: expect.any(Number) });
      await fake.waitFor(() => fake.discoveries >= 3, "more login attempts");
      expect(fake.gateway.connections).toBe(0);
    } finally {
      await wrong.stop();
    }
  });

  it("returns from start after its connect timeout and connects once the gateway answers", async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message), child: () => logger };
    const received: InboundMessage[] = [];
    const statuses: AdapterStatus[] = [];
    const slow = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger, attachmentsDir: "/nonexistent", connectTimeoutMs: 50 });
    fake.holdHello();
    try {
      await slow.start({ receive: async (message) => void received.push(message), reportStatus: (status) => void statuses.push(status) });
      expect(warnings).toEqual(["Discord is not connected yet; still trying in the background"]);
      expect(statuses).toEqual([{ state: "connecting" }]);
      fake.releaseHello();
      await fake.waitFor(() => fake.gateway.identifies === 1, "IDENTIFY");
      await vi.waitFor(() => expect(statuses).toEqual([{ state: "connecting" }, { state: "connected" }]), SLOW_MACHINE);
      fake.postDm(fake.addUser("ada"), "made it");
      await fake.waitFor(() => received.length === 1, "the DM to reach the gateway");
      expect(received[0]?.text).toBe("made it");
    } finally {
      await slow.stop();
    }
  });
});
