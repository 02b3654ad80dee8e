import { describe, expect, it } from "vitest";
import { apiError, chunkBody, completionBody, completionUsage, sseEvent } from "./openai-format.js";

const head = { id: "chatcmpl-1", created: 1_700_000_000, model: "m" };

describe("the OpenAI wire format", () => {
  it("counts cached prompt tokens inside prompt_tokens, as OpenAI does", () => {
    expect(completionUsage({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 5 })).toEqual({
      prompt_tokens: 135,
      completion_tokens: 20,
      total_tokens: 155,
      prompt_tokens_details: { cached_tokens: 30 },
    });
  });

  it("builds a completion, delta chunks, a closing chunk and a usage chunk without choices", () => {
    const usage = completionUsage({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(completionBody(head, "hi", usage)).toMatchObject({ object: "chat.completion", choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }], usage });
    expect(chunkBody(head, { delta: { content: "h" } })).toMatchObject({ object: "chat.completion.chunk", choices: [{ delta: { content: "h" }, finish_reason: null }], usage: null });
    expect(chunkBody(head, { finish: "stop" })).toMatchObject({ choices: [{ delta: {}, finish_reason: "stop" }] });
    expect(chunkBody(head, { usage })).toMatchObject({ choices: [], usage });
  });

  it.each([
    ["bad_request", 400, "invalid_request_error"],
    ["unauthorized", 401, "invalid_request_error"],
    ["session_busy", 409, "invalid_request_error"],
    ["rate_limited", 429, "rate_limit_error"],
    ["internal", 500, "server_error"],
    ["run_failed", 502, "server_error"],
    ["unavailable", 503, "server_error"],
    ["timeout", 504, "server_error"],
  ] as const)("answers %s with %i and OpenAI's error object", (kind, status, type) => {
    const error = apiError(kind, "what went wrong", kind === "bad_request" ? "messages" : undefined);
    expect(error.status).toBe(status);
    expect(error.body.error).toMatchObject({ message: "what went wrong", type, param: kind === "bad_request" ? "messages" : null });
    expect(error.body.error.code.length).toBeGreaterThan(0);
  });

  it("frames server-sent events, [DONE] included", () => {
    expect(sseEvent({ a: 1 })).toBe('data: {"a":1}\n\n');
    expect(sseEvent("[DONE]")).toBe("data: [DONE]\n\n");
  });
});
