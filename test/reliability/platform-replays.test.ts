import { afterEach, describe, expect, it } from "vitest";
import type { LlmServer, RecordedRequest } from "../fakes/llm-server.js";
import { directMessage, eventCallback, nextSlackTs } from "../fakes/slack/slack-events.js";
import {
  deliverSlack,
  lastUserText,
  startDiscordStand,
  startSlackStand,
  startTelegramStand,
  TELEGRAM_WEBHOOK_SECRET,
  telegramWebhookUrl,
  waitUntil,
  watchProcessFailures,
} from "./platform-stands.js";

const BUSY_ACK_START = "Got it. I'm still answering";
let cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

/** Every model request is answered with the question it carried, so a doubled run shows as a doubled answer. */
function answerEchoes(llm: LlmServer, count: number): void {
  llm.enqueue(...Array.from({ length: count }, () => (request: RecordedRequest) => ({ kind: "text" as const, text: `answer to ${/q\d+/.exec(lastUserText(request))?.[0] ?? "?"}` })));
}

function watched(): void {
  const watcher = watchProcessFailures();
  cleanups.push(() => {
    watcher.stop();
    expect(watcher.failures).toEqual([]);
  });
}

describe("platform replays are answered once (real clients, real gateway pipeline)", () => {
  it("Telegram polling: the same update id again in later polls and twice in one batch", async () => {
    watched();
    const stand = await startTelegramStand();
    cleanups.push(stand.close);
    const { fake, h } = stand;
    answerEchoes(h.llm, 2);

    const first = fake.userWrites({ text: "q1 first" });
    // Telegram hands an update out again when the confirming offset never reached it.
    fake.redeliver(first.update);
    await fake.waitForConfirmation(first.update);
    await h.gateway.waitIdle("agent:main:telegram:dm:7");
    fake.redeliver(first.update);
    fake.redeliver(first.update);
    const second = fake.userWrites({ text: "q2 second" });
    await fake.waitForConfirmation(second.update);
    await fake.waitForConfirmation(first.update);
    await h.gateway.waitIdle("agent:main:telegram:dm:7");

    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["answer to q1", "answer to q2"]);
    expect(h.llm.requests).toHaveLength(2);
  });

  it("Telegram polling: an update whose confirming offset never reached Telegram comes again after a restart", async () => {
    watched();
    const stand = await startTelegramStand();
    cleanups.push(stand.close);
    const { fake, h } = stand;
    answerEchoes(h.llm, 2);
    // Every call that would confirm the update fails: the next poll and the confirmation sent while stopping.
    fake.failNext("getUpdates", { error_code: 500, description: "Internal Server Error" }, { times: 2, when: (params) => params.offset !== undefined });
    const { update } = fake.userWrites({ text: "q1 unconfirmed" });
    await waitUntil(() => fake.callsOf("getUpdates").some((call) => call.outcome === 500), "the failed confirmation");
    await waitUntil(() => fake.sentTo(7).length === 1, "the answer");
    await h.gateway.waitIdle("agent:main:telegram:dm:7");
    expect(fake.confirmedOffset()).toBeLessThanOrEqual(update.update_id);
    await h.restart();
    await fake.waitForConfirmation(update);
    await h.gateway.waitIdle("agent:main:telegram:dm:7");
    const next = fake.userWrites({ text: "q2 afterwards" });
    await fake.waitForConfirmation(next.update);
    await h.gateway.waitIdle("agent:main:telegram:dm:7");

    expect(fake.callsOf("getUpdates").filter((call) => call.outcome === 500)).toHaveLength(2);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["answer to q1", "answer to q2"]);
    expect(h.llm.requests).toHaveLength(2);
  });

  it("Telegram webhook: the same update POSTed twice at once and again later gets one run and one reply", async () => {
    watched();
    const stand = await startTelegramStand({ webhook: true });
    cleanups.push(stand.close);
    const { fake, h } = stand;
    answerEchoes(h.llm, 1);
    const url = telegramWebhookUrl(h);
    const { update } = fake.userWrites({ text: "q1 over the webhook" });
    const statuses = await Promise.all([fake.deliverToWebhook(update, { url, secret: TELEGRAM_WEBHOOK_SECRET }), fake.deliverToWebhook(update, { url, secret: TELEGRAM_WEBHOOK_SECRET })]);
    await h.gateway.waitIdle("agent:main:telegram:dm:7");
    statuses.push(await fake.deliverToWebhook(update, { url, secret: TELEGRAM_WEBHOOK_SECRET }));
    await h.gateway.waitIdle("agent:main:telegram:dm:7");

    expect(statuses.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(fake.sentTo(7).map((s) => s.visible)).toEqual(["answer to q1"]);
    expect(h.llm.requests).toHaveLength(1);
  });

  it("Slack: retries of an event (X-Slack-Retry-Num, same event_id) while the first is slow to acknowledge, after it, and after a restart", async () => {
    watched();
    // The first delivery waits for a name lookup Slack is slow to answer, past the acknowledgement deadline.
    const stand = await startSlackStand({ ackDeadlineMs: 200, nameLookupWaitMs: 1_500 });
    cleanups.push(stand.close);
    const { fake, h } = stand;
    answerEchoes(h.llm, 2);
    const payload = eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "q1 slow one", ts: nextSlackTs() }));
    const releaseLookup = fake.holdNext("users.info");
    const slow = await deliverSlack(h, payload);
    // Slack saw no timely answer and retries while the first delivery is still being handed over.
    const duringRetry = await deliverSlack(h, payload, { retryNum: 1, retryReason: "http_timeout" });
    releaseLookup();
    await waitUntil(() => fake.posted.length >= 1, "the answer to the slow event");
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");
    const afterRetry = await deliverSlack(h, payload, { retryNum: 2, retryReason: "http_error" });
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");
    // A restarted gateway has forgotten the event ids it saw; the store still knows the message.
    await h.restart();
    const afterRestart = await deliverSlack(h, payload, { retryNum: 3, retryReason: "http_timeout" });
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");
    await deliverSlack(h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "q2 next one" })));
    await waitUntil(() => fake.posted.length >= 2, "the answer to the next event");
    await h.gateway.waitIdle("agent:main:slack:dm:D_ALICE");

    expect([slow.status, duringRetry.status, afterRetry.status, afterRestart.status]).toEqual([200, 200, 200, 200]);
    expect(stand.logger.entries.map((e) => e.message)).toContain("slack event still being handed over after the acknowledgement deadline; acknowledged anyway");
    expect(fake.posted.map((p) => p.text)).toEqual(["answer to q1", "answer to q2"]);
    expect(h.llm.requests).toHaveLength(2);
  });

  it("Discord: a RESUME that replays MESSAGE_CREATEs already seen, and the same message dispatched again after reconnecting", async () => {
    watched();
    const stand = await startDiscordStand();
    cleanups.push(stand.close);
    const { fake, h, ada } = stand;
    answerEchoes(h.llm, 3);
    const dmKey = `agent:main:discord:dm:${fake.dmChannelId(ada)}`;
    const q1 = fake.postDm(ada, "q1 before the drop");
    await fake.waitForSent(1);
    fake.postDm(ada, "q2 before the drop");
    await fake.waitForSent(2);
    await h.gateway.waitIdle(dmKey);

    // The resume replays both messages (and the bot's own replies) although the client had them.
    fake.dropConnection({ replayAlreadySent: 6 });
    await fake.waitFor(() => fake.gateway.resumes === 1 && fake.connected, "the resume");
    // Discord may also deliver a message again with a new sequence number once the connection is back.
    fake.dispatch("MESSAGE_CREATE", { ...q1.payload, channel_type: 1 });
    fake.postDm(ada, "q3 after the resume");
    await fake.waitForSent(3);
    await h.gateway.waitIdle(dmKey);

    const answers = fake.sent.map((m) => m.content).filter((c) => !c.startsWith(BUSY_ACK_START));
    expect(answers).toEqual(["answer to q1", "answer to q2", "answer to q3"]);
    expect(fake.gateway.replayedEvents).toBeGreaterThanOrEqual(4);
    expect(h.llm.requests).toHaveLength(3);
  });

  it("Discord: a message already answered arrives again on a fresh session after the resume was refused", async () => {
    watched();
    const stand = await startDiscordStand();
    cleanups.push(stand.close);
    const { fake, h, ada } = stand;
    answerEchoes(h.llm, 2);
    const dmKey = `agent:main:discord:dm:${fake.dmChannelId(ada)}`;
    const q1 = fake.postDm(ada, "q1 before the outage");
    await fake.waitForSent(1);
    await h.gateway.waitIdle(dmKey);
    fake.refuseNextResume();
    fake.dropConnection();
    // discord.js spaces IDENTIFYs five seconds apart, as Discord requires.
    await fake.waitFor(() => fake.gateway.identifies === 2 && fake.connected, "a fresh IDENTIFY", 20_000);
    fake.dispatch("MESSAGE_CREATE", { ...q1.payload, channel_type: 1 });
    fake.postDm(ada, "q2 after the outage");
    await fake.waitForSent(2);
    await h.gateway.waitIdle(dmKey);

    expect(fake.sent.map((m) => m.content)).toEqual(["answer to q1", "answer to q2"]);
    expect(fake.gateway.refusedResumes).toBe(1);
    expect(h.llm.requests).toHaveLength(2);
  }, 30_000);
});
