import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeSlack } from "../fakes/slack/fake-slack.js";
import { directMessage, eventCallback, nextSlackTs } from "../fakes/slack/slack-events.js";
import {
  deliverSlack,
  lastUserText,
  SLACK_SIGNING_SECRET,
  slackEventsUrl,
  startSlackStand,
  waitUntil,
  watchProcessFailures,
  type Stand,
} from "./platform-stands.js";

const DM_KEY = "agent:main:slack:dm:D_ALICE";
let stand: Stand<FakeSlack> | undefined;
let watcher: ReturnType<typeof watchProcessFailures> | undefined;

afterEach(async () => {
  await stand?.close();
  watcher?.stop();
  const failures = watcher?.failures ?? [];
  stand = undefined;
  watcher = undefined;
  expect(failures).toEqual([]);
});

async function start(options: { socketMode?: boolean } = {}): Promise<Stand<FakeSlack>> {
  watcher = watchProcessFailures();
  stand = await startSlackStand(options);
  return stand;
}

/** A normal DM after the junk is answered: nothing got stuck. */
async function expectNextAnswered(s: Stand<FakeSlack>, text: string): Promise<void> {
  s.h.llm.enqueue({ kind: "text", text: `answer: ${text}` });
  const before = s.fake.posted.length;
  expect((await deliverSlack(s.h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text })))).status).toBe(200);
  await waitUntil(() => s.fake.posted.length > before, `the answer to "${text}"`);
  await s.h.gateway.waitIdle(DM_KEY);
  expect(s.fake.posted.at(-1)?.text).toBe(`answer: ${text}`);
}

/** POSTs raw bytes to /slack/events, signed with the real secret unless `signed` is false. */
async function postRaw(s: Stand<FakeSlack>, body: string | Buffer, options: { signed?: boolean; contentType?: string } = {}): Promise<number> {
  const headers: Record<string, string> = { "content-type": options.contentType ?? "application/json" };
  if (options.signed !== false) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", SLACK_SIGNING_SECRET).update(`v0:${timestamp}:`).update(body).digest("hex");
    Object.assign(headers, { "x-slack-request-timestamp": timestamp, "x-slack-signature": `v0=${signature}` });
  }
  const response = await fetch(slackEventsUrl(s.h), { method: "POST", headers, body });
  await response.text();
  return response.status;
}

describe("hostile Slack input (Bolt against the stand-in, real gateway)", () => {
  it("answers bad bodies on the events endpoint with 4xx and forged or missing signatures with 401", async () => {
    const s = await start();
    const statuses = {
      invalidJson: await postRaw(s, "{not json"),
      array: await postRaw(s, "[1,2]"),
      badForm: await postRaw(s, "payload=%7Bbroken", { contentType: "application/x-www-form-urlencoded" }),
      tenMegabytes: await postRaw(s, Buffer.alloc(10 * 1024 * 1024, 0x20)),
      missingSignature: await postRaw(s, JSON.stringify(eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "unsigned" }))), { signed: false }),
      forged: (await deliverSlack(s.h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "forged" })), { signature: "forged" })).status,
    };
    expect(statuses).toEqual({ invalidJson: 400, array: 400, badForm: 400, tenMegabytes: 413, missingSignature: 401, forged: 401 });
    const refusals = s.logger.entries.filter((e) => e.message === "slack request refused").map((e) => e.fields.reason);
    expect(refusals).toEqual(["missing_signature", "bad_signature"]);
    expect(s.fake.posted).toEqual([]);
    expect(s.h.llm.requests).toHaveLength(0);
    await expectNextAnswered(s, "hello after the junk");
  });

  it("acknowledges junk events (missing fields, null user, unknown types, malformed blocks) and posts nothing", async () => {
    const s = await start();
    const dm = (fields: Record<string, unknown>): Record<string, unknown> => ({ type: "message", channel: "D_ALICE", channel_type: "im", ts: nextSlackTs(), ...fields });
    // Events Bolt could not read are refused; the rest are acknowledged (Slack would only send them again) and ignored.
    const junk: Array<[unknown, number]> = [
      [eventCallback(dm({ user: null, text: "null user" })), 400],
      [{ ...eventCallback(dm({ user: "U_ALICE", text: "no event" })), event: null }, 400],
      [{ ...eventCallback(dm({ user: "U_ALICE" })), event: "an event that is text" }, 400],
      [eventCallback({ type: "reaction_added", user: "U_ALICE", reaction: "eyes", item: null }), 400],
      [{ ...eventCallback(dm({ user: "U_ALICE", text: "bad authorization" })), authorizations: [null] }, 400],
      [eventCallback(dm({ text: "no user" })), 200],
      [eventCallback({ type: "message", user: "U_ALICE", text: "no channel", ts: nextSlackTs() }), 200],
      [eventCallback({ type: "message", channel: "D_ALICE", user: "U_ALICE", text: "no ts" }), 200],
      [eventCallback(dm({ user: "U_ALICE" })), 200],
      [eventCallback(dm({ user: "U_ALICE", text: "   " })), 200],
      [eventCallback(dm({ user: "U_ALICE", text: 12345 })), 200],
      [eventCallback(dm({ user: "U_ALICE", text: "<@UBOT>", blocks: "not blocks", files: "not files" })), 200],
      [eventCallback({ type: "reaction_added", user: "U_ALICE", reaction: "eyes", item: { type: "message", channel: "D_ALICE", ts: "1.1" } }), 200],
      [eventCallback({ type: "event_from_the_future", payload: { anything: true } }), 200],
      [{ type: "block_actions", actions: [{ action_id: "x" }], user: null }, 200],
      [{ type: "event_callback" }, 200],
    ];
    const statuses: number[] = [];
    for (const [payload] of junk) statuses.push((await deliverSlack(s.h, payload)).status);
    expect(statuses).toEqual(junk.map(([, status]) => status));
    expect(s.logger.entries.filter((e) => e.message === "slack event refused: it cannot be read").map((e) => e.fields.reason)).toEqual([
      "event.user is neither text nor an object",
      "event is not an object",
      "event is not an object",
      "event.item is not an object",
      "authorizations[0] is not an object",
    ]);
    expect(s.logger.entries.filter((e) => e.message === "slack event failed; Slack will deliver it again")).toEqual([]);
    await s.h.gateway.waitIdle(DM_KEY);
    expect(s.fake.posted).toEqual([]);
    expect(s.h.llm.requests).toHaveLength(0);
    expect(s.logger.entries.some((e) => e.message === "slack event ignored")).toBe(true);
    await expectNextAnswered(s, "a real question");
  });

  it("over Socket Mode, confirms envelopes it cannot read (so Slack stops resending them) and answers the next message", async () => {
    const s = await start({ socketMode: true });
    await s.fake.socket.waitForConnection();
    const envelopes = [
      { ...eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "x" })), event: null },
      eventCallback({ type: "message", channel: "D_ALICE", channel_type: "im", user: null, text: "null user", ts: nextSlackTs() }),
      eventCallback({ type: "message", channel: "D_ALICE", channel_type: "im", user: "U_ALICE", ts: nextSlackTs() }),
    ];
    for (const payload of envelopes) await s.fake.socket.send(payload);
    await s.fake.socket.send({ type: "block_actions", user: null }, { type: "interactive" });
    expect(s.fake.socket.acks).toHaveLength(4);
    expect(s.logger.entries.filter((e) => e.message === "slack event confirmed but ignored: it cannot be read")).toHaveLength(2);
    s.h.llm.enqueue({ kind: "text", text: "socket still works" });
    await s.fake.socket.send(eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "hello socket" })));
    await waitUntil(() => s.fake.posted.length === 1, "the answer over the socket");
    await s.h.gateway.waitIdle(DM_KEY);
    expect(s.fake.posted.map((p) => p.text)).toEqual(["socket still works"]);
    expect(s.h.llm.requests).toHaveLength(1);
  });

  it("answers lone surrogates, RTL overrides, unknown mentions and malformed blocks, and a display name with an override", async () => {
    const s = await start();
    s.fake.addUser({ id: "U_ALICE", name: "alice", displayName: "\u202Eecila" });
    s.h.llm.enqueue({ kind: "text", text: "answer one" });
    const text = "lone \uD800 and \uDFFF, \u202Eevil.exe, <@U_NOBODY> <#C_NONE|> <!subteam^> <https://x|> <<<>>> &amp;lt;";
    const event = { ...directMessage({ channel: "D_ALICE", user: "U_ALICE", text }), blocks: [{ type: "rich_text", elements: [{ type: "nonsense", offset: 99_999 }] }, null, 7] };
    expect((await deliverSlack(s.h, eventCallback(event))).status).toBe(200);
    await waitUntil(() => s.fake.posted.length === 1, "the answer");
    await s.h.gateway.waitIdle(DM_KEY);
    expect(lastUserText(s.h.llm.requests[0])).toContain("\u202Eevil.exe");
    expect(lastUserText(s.h.llm.requests[0])).toContain("@U_NOBODY");
    expect(s.fake.posted.map((p) => p.text)).toEqual(["answer one"]);
    await expectNextAnswered(s, "plain again");
  });

  it("hands a 100,000-character text to the model and delivers a long answer in parts", async () => {
    const s = await start();
    const long = `q-long ${"y".repeat(99_990)} end`;
    const answer = Array.from({ length: 150 }, (_, i) => `Line ${i} of a long Slack answer, split into parts.`).join("\n");
    s.h.llm.enqueue({ kind: "text", text: answer });
    expect((await deliverSlack(s.h, eventCallback(directMessage({ channel: "D_ALICE", user: "U_ALICE", text: long })))).status).toBe(200);
    await waitUntil(() => s.fake.posted.length > 1, "the long answer");
    await s.h.gateway.waitIdle(DM_KEY);
    expect(lastUserText(s.h.llm.requests[0])).toContain(long);
    for (const post of s.fake.posted) expect(post.text.length).toBeLessThanOrEqual(4_000);
    expect(s.fake.posted.map((p) => p.text).join("\n")).toContain("Line 149 of a long Slack answer");
    await expectNextAnswered(s, "short one");
  });

  it("refuses files with absurd or nonsense sizes with a note and answers the message", async () => {
    const s = await start();
    s.h.llm.enqueue({ kind: "text", text: "about your files" });
    const files = [
      { id: "F_HUGE", name: "galaxy.bin", size: 9e18, mode: "hosted", url_private: `${s.fake.apiUrl}/files/F_HUGE/galaxy.bin` },
      { id: "F_NEG", name: "minus.bin", size: -1, mode: "hosted", url_private: `${s.fake.apiUrl}/files/F_NEG/minus.bin` },
      { id: "F_ODD", name: "odd.bin", size: "a lot", mode: "hosted", url_private: "not a url" },
      { name: "no id" },
      null,
    ];
    const event = directMessage({ channel: "D_ALICE", user: "U_ALICE", text: "q-files", files });
    expect((await deliverSlack(s.h, eventCallback(event))).status).toBe(200);
    await waitUntil(() => s.fake.posted.length === 1, "the answer about the files");
    await s.h.gateway.waitIdle(DM_KEY);
    const seen = lastUserText(s.h.llm.requests[0]);
    expect(seen).toContain('The file "galaxy.bin"');
    expect(seen).toContain("was not downloaded");
    expect(seen).toContain('The file "minus.bin" could not be downloaded');
    await expectNextAnswered(s, "after the files");
  });
});
