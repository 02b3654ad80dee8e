import { App } from "@slack/bolt";
import { describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { boltLoggerFor } from "./bolt-logger.js";
import { unreadableBody } from "./event-shape.js";

const message = { type: "message", channel: "D1", channel_type: "im", user: "U1", text: "hi", ts: "1.1" };
const envelope = (event: unknown, extra: Record<string, unknown> = {}) => ({ type: "event_callback", team_id: "T1", event_id: "Ev1", event, ...extra });

const JUNK: Array<[string, Record<string, unknown>, string]> = [
  ["a null event", envelope(null), "event is not an object"],
  ["a text event", envelope("hello"), "event is not an object"],
  ["a null user", envelope({ ...message, user: null }), "event.user is neither text nor an object"],
  ["a null channel", envelope({ type: "channel_created", channel: null }), "event.channel is neither text nor an object"],
  ["a null item", envelope({ type: "reaction_added", user: "U1", item: null }), "event.item is not an object"],
  ["a text item", envelope({ type: "reaction_added", user: "U1", item: "C1" }), "event.item is not an object"],
  ["a null subteam", envelope({ type: "subteam_created", subteam: null }), "event.subteam is not an object"],
  ["a null authorization", envelope(message, { authorizations: [null] }), "authorizations[0] is not an object"],
  ["an interactive payload without user", { type: "block_actions", actions: [{ action_id: "a" }], user: null }, "not an Events API event"],
];

describe("unreadableBody", () => {
  it("passes well-formed events, including objects where Slack sends them", () => {
    expect(unreadableBody(envelope(message))).toBeUndefined();
    expect(unreadableBody(envelope({ type: "channel_created", channel: { id: "C1", creator: "U1" } }))).toBeUndefined();
    expect(unreadableBody(envelope({ type: "reaction_added", user: "U1", item: { type: "message", channel: "C1", ts: "1.1" } }))).toBeUndefined();
    expect(unreadableBody(envelope(message, { authorizations: [{ team_id: "T1", user_id: "UBOT" }] }))).toBeUndefined();
  });

  it.each(JUNK)("names what is wrong with %s", (_name, body, reason) => {
    expect(unreadableBody(body)).toBe(reason);
  });

  it("refuses exactly the event bodies Bolt throws on", async () => {
    // Bolt's processEvent reads these before any listener runs; had it coped, the check would refuse too much.
    const app = new App({ token: "xoxb-unit", botId: "BBOT", botUserId: "UBOT", logger: boltLoggerFor(silentLogger), receiver: { init: () => undefined, start: async () => undefined, stop: async () => undefined } });
    for (const [name, body] of JUNK) {
      await expect(app.processEvent({ body, ack: async () => undefined }), name).rejects.toThrow(TypeError);
    }
  });
});
