import { describe, expect, it } from "vitest";
import { GrammyError, HttpError } from "grammy";
import { describeApiFailure } from "./api-errors.js";
import { failedSend } from "./send-result.js";

function apiError(code: number, description: string, parameters: Record<string, number> = {}): GrammyError {
  return new GrammyError(`Call failed`, { ok: false, error_code: code, description, parameters }, "sendMessage", {});
}

describe("describeApiFailure and failedSend", () => {
  it("retries a 429 after Telegram's retry_after", () => {
    const failure = describeApiFailure(apiError(429, "Too Many Requests: retry after 7", { retry_after: 7 }));
    expect(failure).toEqual({ kind: "rate-limited", retryAfterMs: 7000, message: "429 Too Many Requests: retry after 7" });
    expect(failedSend(failure)).toEqual({ ok: false, retryable: true, retryAfterMs: 7000, error: "429 Too Many Requests: retry after 7" });
  });

  it("retries network and server errors, but not rejections", () => {
    expect(failedSend(describeApiFailure(new HttpError("Network request for 'sendMessage' failed!", new Error("socket hang up"))))).toEqual({
      ok: false,
      retryable: true,
      ambiguous: true,
      error: "network error: socket hang up",
    });
    const refused = new HttpError("Network request for 'getUpdates' failed!", new Error("request to http://127.0.0.1:9/bot123:SECRET/getUpdates failed, reason: connect ECONNREFUSED"));
    expect(describeApiFailure(refused).message).toBe("network error: request to <url> failed, reason: connect ECONNREFUSED");
    expect(failedSend(describeApiFailure(apiError(502, "Bad Gateway"))).retryable).toBe(true);
    expect(failedSend(describeApiFailure(apiError(400, "Bad Request: can't parse entities: x")))).toEqual({ ok: false, retryable: false, error: "400 Bad Request: can't parse entities: x" });
    expect(failedSend(describeApiFailure(apiError(403, "Forbidden: bot was blocked by the user"))).retryable).toBe(false);
  });

  it("flags a send that may have reached Telegram as ambiguous, and one that never left as plainly retryable", () => {
    const refused = Object.assign(new Error("request to http://127.0.0.1:9/bot1:S/sendMessage failed, reason: connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    const unknownHost = Object.assign(new Error("request to https://api.telegram.invalid failed, reason: getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    const reset = Object.assign(new Error("request to http://127.0.0.1:9/bot1:S/sendMessage failed, reason: socket hang up"), { code: "ECONNRESET" });
    expect(failedSend(describeApiFailure(new HttpError("Network request for 'sendMessage' failed!", refused)))).not.toHaveProperty("ambiguous");
    expect(failedSend(describeApiFailure(new HttpError("Network request for 'sendMessage' failed!", unknownHost)))).not.toHaveProperty("ambiguous");
    expect(failedSend(describeApiFailure(new HttpError("Network request for 'sendMessage' failed!", reset)))).toMatchObject({ retryable: true, ambiguous: true });
    expect(failedSend(describeApiFailure(new Error("Request to 'sendMessage' timed out after 60 seconds")))).toEqual({
      ok: false,
      retryable: true,
      ambiguous: true,
      error: "Request to 'sendMessage' timed out after 60 seconds",
    });
    expect(failedSend(describeApiFailure(apiError(502, "Bad Gateway")))).toMatchObject({ retryable: true, ambiguous: true });
    expect(failedSend(describeApiFailure(apiError(429, "Too Many Requests: retry after 1", { retry_after: 1 })))).not.toHaveProperty("ambiguous");
  });

  it("tells conflicts, refused tokens and migrated groups apart", () => {
    expect(describeApiFailure(apiError(409, "Conflict: terminated by other getUpdates request")).kind).toBe("conflict");
    expect(describeApiFailure(apiError(401, "Unauthorized")).kind).toBe("unauthorized");
    expect(describeApiFailure(apiError(400, "Bad Request: group chat was upgraded to a supergroup chat", { migrate_to_chat_id: -1002 }))).toMatchObject({
      kind: "rejected",
      migrateToChatId: -1002,
    });
  });
});
