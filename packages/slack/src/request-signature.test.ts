import { describe, expect, it } from "vitest";
import { slackRequestSignature, verifySlackRequest } from "./request-signature.js";

const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const NOW_MS = 1_700_000_000_000;
const body = Buffer.from('{"type":"event_callback","event_id":"Ev1"}');

function headersFor(timestamp: number, signature?: string): Record<string, string> {
  const ts = String(timestamp);
  return { "x-slack-request-timestamp": ts, "x-slack-signature": signature ?? slackRequestSignature(SECRET, ts, body) };
}

describe("verifySlackRequest", () => {
  it("accepts a request signed with the secret just now", () => {
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(NOW_MS / 1000), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: true });
  });

  it("matches Slack's documented signing scheme", () => {
    // The example from Slack's "Verifying requests from Slack" guide.
    const raw =
      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
    expect(slackRequestSignature(SECRET, "1531420618", raw)).toBe("v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503");
  });

  it("refuses a forged signature, also one of another length", () => {
    const forged = "v0=" + "0".repeat(64);
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(NOW_MS / 1000, forged), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "bad_signature" });
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(NOW_MS / 1000, "v0=abc"), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a body changed after signing", () => {
    const headers = headersFor(NOW_MS / 1000);
    expect(verifySlackRequest({ signingSecret: SECRET, headers, rawBody: Buffer.from('{"type":"event_callback"}'), nowMs: NOW_MS })).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("refuses a genuine signature older than five minutes, or from the future", () => {
    const old = NOW_MS / 1000 - 301;
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(old), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "stale_timestamp" });
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(NOW_MS / 1000 - 300), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: true });
    expect(verifySlackRequest({ signingSecret: SECRET, headers: headersFor(NOW_MS / 1000 + 301), rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "stale_timestamp" });
  });

  it("refuses requests without the headers or with a malformed timestamp", () => {
    expect(verifySlackRequest({ signingSecret: SECRET, headers: {}, rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "missing_signature" });
    const headers = { "x-slack-request-timestamp": "soon", "x-slack-signature": "v0=00" };
    expect(verifySlackRequest({ signingSecret: SECRET, headers, rawBody: body, nowMs: NOW_MS })).toEqual({ ok: false, reason: "stale_timestamp" });
  });
});
