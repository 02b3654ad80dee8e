import { describe, expect, it } from "vitest";
import { guardEnvelope, UNREADABLE_EVENTS_API } from "./guarded-socket-client.js";

const events = (payload: unknown) => JSON.stringify({ envelope_id: "env-1", type: "events_api", payload, retry_attempt: 0 });

describe("guardEnvelope", () => {
  it("passes well-formed envelopes, other types and unparsable messages through unchanged", () => {
    const fine = events({ type: "event_callback", event: { type: "message" } });
    expect(guardEnvelope(fine)).toBe(fine);
    const hello = JSON.stringify({ type: "hello" });
    expect(guardEnvelope(hello)).toBe(hello);
    expect(guardEnvelope("{broken")).toBe("{broken");
    const bytes = new TextEncoder().encode(fine).buffer;
    expect(guardEnvelope(bytes)).toBe(bytes);
  });

  it.each([
    ["a null event", { type: "event_callback", event: null }],
    ["no event", { type: "event_callback" }],
    ["a text event", { type: "event_callback", event: "message" }],
    ["a null payload", null],
  ])("renames an events_api envelope with %s, keeping its id and payload", (_name, payload) => {
    const guarded = JSON.parse(String(guardEnvelope(events(payload)))) as Record<string, unknown>;
    expect(guarded).toEqual({ envelope_id: "env-1", type: UNREADABLE_EVENTS_API, payload, retry_attempt: 0 });
  });
});
