import { describe, expect, it } from "vitest";
import { idempotentNonce, NONCE_LENGTH, ReplyNonces } from "./reply-nonce.js";

describe("ReplyNonces", () => {
  it("repeats the nonce for a re-sent reply and changes it once the reply was delivered", () => {
    const nonces = new ReplyNonces();
    const reply = { channelId: "10", replyToMessageId: "20", text: "Done." };
    const first = nonces.nonceFor(reply);
    expect(first.length).toBeLessThanOrEqual(NONCE_LENGTH);
    expect(nonces.nonceFor({ ...reply })).toBe(first);
    nonces.delivered(reply);
    const second = nonces.nonceFor(reply);
    expect(second).not.toBe(first);
    expect(new ReplyNonces().nonceFor(reply)).toBe(first);
  });

  it("tells replies apart by channel, message answered and text", () => {
    const nonces = new ReplyNonces();
    const seen = new Set([
      nonces.nonceFor({ channelId: "10", text: "Done." }),
      nonces.nonceFor({ channelId: "11", text: "Done." }),
      nonces.nonceFor({ channelId: "10", replyToMessageId: "20", text: "Done." }),
      nonces.nonceFor({ channelId: "10", text: "Done!" }),
    ]);
    expect(seen.size).toBe(4);
  });

  it("forgets the oldest replies beyond its capacity", () => {
    const nonces = new ReplyNonces(1);
    const a = { channelId: "10", text: "a" };
    const fresh = nonces.nonceFor(a);
    nonces.delivered(a);
    nonces.delivered({ channelId: "10", text: "b" });
    expect(nonces.nonceFor(a)).toBe(fresh);
  });
});

describe("idempotentNonce", () => {
  it("is the same for every attempt at one part, and differs for another key or other words", () => {
    const reply = { channelId: "10", text: "Part one." };
    const nonce = idempotentNonce("d7p0", reply);
    expect(nonce).toHaveLength(NONCE_LENGTH);
    expect(idempotentNonce("d7p0", { ...reply })).toBe(nonce);
    expect(new Set([nonce, idempotentNonce("d7p1", reply), idempotentNonce("d7p0", { ...reply, text: "Part two." })]).size).toBe(3);
    expect(nonce).not.toBe(new ReplyNonces().nonceFor(reply));
  });
});
