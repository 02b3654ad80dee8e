import { App } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { boltLoggerFor } from "./bolt-logger.js";
import { SlackHttpReceiver } from "./http-receiver.js";
import type { RefusalReason } from "./request-signature.js";
import { slackRequestSignature } from "./request-signature.js";

const SECRET = "receiver-secret";
const NOW_MS = 1_700_000_000_000;

interface Rig {
  receiver: SlackHttpReceiver;
  refused: RefusalReason[];
  seen: string[];
}

/** A real Bolt App on the receiver; the listener's behaviour per message text is given by the test. */
async function rig(listener: (text: string) => Promise<void>, ackDeadlineMs = 2_500): Promise<Rig> {
  const refused: RefusalReason[] = [];
  const seen: string[] = [];
  const receiver = new SlackHttpReceiver({ signingSecret: SECRET, logger: silentLogger, now: () => NOW_MS, onRefused: (r) => refused.push(r), ackDeadlineMs });
  // botId and botUserId given: Bolt makes no auth.test call, so no Web API is needed here.
  const app = new App({ token: "xoxb-unit", botId: "BBOT", botUserId: "UBOT", receiver, logger: boltLoggerFor(silentLogger) });
  app.event("message", async ({ event }) => {
    const text = "text" in event && typeof event.text === "string" ? event.text : "";
    seen.push(text);
    await listener(text);
  });
  await app.start();
  return { receiver, refused, seen };
}

function request(payload: unknown, headers: Record<string, string> = {}) {
  const rawBody = Buffer.from(JSON.stringify(payload));
  const ts = String(NOW_MS / 1000);
  return {
    rawBody,
    headers: { "content-type": "application/json", "x-slack-request-timestamp": ts, "x-slack-signature": slackRequestSignature(SECRET, ts, rawBody), ...headers },
  };
}

function event(text: string, eventId = `Ev-${text}`) {
  return { type: "event_callback", team_id: "T1", event_id: eventId, event: { type: "message", channel: "D1", channel_type: "im", user: "U1", text, ts: "1.1" } };
}

describe("SlackHttpReceiver", () => {
  it("answers 200 after the listeners ran and passes Slack's retry headers to Bolt", async () => {
    const { receiver, seen } = await rig(async () => {});
    const answer = await receiver.handle(request(event("hi"), { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" }));
    expect(answer.status).toBe(200);
    expect(seen).toEqual(["hi"]);
  });

  it("answers 500 when handing the event over failed, so that Slack delivers it again", async () => {
    const { receiver } = await rig(async (text) => {
      if (text === "boom") throw new Error("store is down");
    });
    expect((await receiver.handle(request(event("boom")))).status).toBe(500);
  });

  it("acknowledges by the deadline even while the listener is still busy", async () => {
    let release: () => void = () => {};
    const busy = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finished = false;
    const { receiver } = await rig(async () => {
      await busy;
      finished = true;
    }, 20);
    const answer = await receiver.handle(request(event("slow")));
    expect(answer.status).toBe(200);
    expect(finished).toBe(false);
    release();
  });

  it("refuses bad signatures with 401, unreadable bodies with 400, and everything with 503 once stopped", async () => {
    const { receiver, refused, seen } = await rig(async () => {});
    expect((await receiver.handle(request(event("x"), { "x-slack-signature": "v0=bad" }))).status).toBe(401);
    expect(refused).toEqual(["bad_signature"]);
    const raw = Buffer.from("{not json");
    const ts = String(NOW_MS / 1000);
    expect((await receiver.handle({ rawBody: raw, headers: { "x-slack-request-timestamp": ts, "x-slack-signature": slackRequestSignature(SECRET, ts, raw) } })).status).toBe(400);
    await receiver.stop();
    expect((await receiver.handle(request(event("late")))).status).toBe(503);
    expect(seen).toEqual([]);
  });

  it("refuses an event Bolt cannot read with 400 and acknowledges a body without an event, neither reaching Bolt", async () => {
    const { receiver, seen } = await rig(async () => {});
    const broken = { ...event("null user"), event: { type: "message", channel: "D1", channel_type: "im", user: null, text: "x", ts: "1.2" } };
    const refusedEvent = await receiver.handle(request(broken));
    expect([refusedEvent.status, refusedEvent.body]).toEqual([400, "unreadable event: event.user is neither text nor an object\n"]);
    expect((await receiver.handle(request({ ...event("null event"), event: null }))).status).toBe(400);
    expect((await receiver.handle(request({ type: "block_actions", actions: [], user: null }))).status).toBe(200);
    expect((await receiver.handle(request(event("fine")))).status).toBe(200);
    expect(seen).toEqual(["fine"]);
  });
});
