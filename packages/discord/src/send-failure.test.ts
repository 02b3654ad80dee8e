import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { describe, expect, it } from "vitest";
import { outboundMessageBody } from "./outbound-body.js";
import { sendFailure } from "./send-failure.js";

const request = { body: undefined, files: undefined };

describe("sendFailure", () => {
  it("makes a Discord rejection final, with Discord's reason", () => {
    const error = new DiscordAPIError(
      { message: "Invalid Form Body", code: 50035, errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } } },
      50035,
      400,
      "POST",
      "http://127.0.0.1/api/v10/channels/1/messages",
      request,
    );
    const failure = sendFailure(error);
    expect(failure.retryable).toBe(false);
    expect(failure.error).toContain("HTTP 400, code 50035");
    expect(failure.error).toContain("Must be 2000 or fewer in length.");
  });

  it("retries server errors and broken connections", () => {
    expect(sendFailure(new HTTPError(502, "Bad Gateway", "POST", "http://x", request)).retryable).toBe(true);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(sendFailure(refused)).toMatchObject({ retryable: true });
    expect(sendFailure(new TypeError("fetch failed", { cause: refused })).retryable).toBe(true);
    expect(sendFailure(new DOMException("This operation was aborted", "AbortError")).retryable).toBe(true);
  });

  it("flags failures after the request left as ambiguous, and failures to connect as plainly retryable", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    const unknownHost = Object.assign(new Error("getaddrinfo ENOTFOUND discord.invalid"), { code: "ENOTFOUND" });
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const closed = Object.assign(new Error("other side closed"), { name: "SocketError", code: "UND_ERR_SOCKET" });
    expect(sendFailure(new TypeError("fetch failed", { cause: refused }))).not.toHaveProperty("ambiguous");
    expect(sendFailure(new TypeError("fetch failed", { cause: unknownHost }))).not.toHaveProperty("ambiguous");
    expect(sendFailure(new TypeError("fetch failed", { cause: reset }))).toMatchObject({ retryable: true, ambiguous: true });
    expect(sendFailure(new TypeError("fetch failed", { cause: closed }))).toMatchObject({ retryable: true, ambiguous: true });
    expect(sendFailure(new DOMException("This operation was aborted", "AbortError"))).toMatchObject({ retryable: true, ambiguous: true });
    expect(sendFailure(new HTTPError(502, "Bad Gateway", "POST", "http://x", request))).toMatchObject({ retryable: true, ambiguous: true });
  });

  it("gives a rate-limited edit back as retryable with Discord's wait", () => {
    const limit = { timeToReset: 2_050, limit: 5, method: "PATCH", hash: "h", url: "http://x", route: "/channels/:id/messages/:id", majorParameter: "1", global: false, retryAfter: 2_050, sublimitTimeout: 0, scope: "user" as const };
    expect(sendFailure(new RateLimitError(limit))).toMatchObject({ ok: false, retryable: true, retryAfterMs: 2_050 });
  });

  it("does not retry what is neither", () => {
    expect(sendFailure(new Error("Expected token to be set for this request, but none was present")).retryable).toBe(false);
    expect(sendFailure("weird").retryable).toBe(false);
  });
});

describe("outboundMessageBody", () => {
  it("suppresses every ping and quotes the message it answers", () => {
    expect(outboundMessageBody("hi @everyone", "123")).toEqual({
      content: "hi @everyone",
      allowed_mentions: { parse: [], replied_user: false },
      message_reference: { message_id: "123", fail_if_not_exists: false },
    });
    expect(outboundMessageBody("hi")).not.toHaveProperty("message_reference");
  });

  it("asks Discord to enforce the nonce so a repeated send returns the first message", () => {
    expect(outboundMessageBody("hi", undefined, "abc")).toMatchObject({ nonce: "abc", enforce_nonce: true });
    expect(outboundMessageBody("hi")).not.toHaveProperty("enforce_nonce");
  });
});
