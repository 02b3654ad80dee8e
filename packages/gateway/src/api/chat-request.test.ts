import { describe, expect, it } from "vitest";
import { MAX_REQUEST_MESSAGES, parseChatRequest } from "./chat-request.js";

const user = (content: unknown) => ({ role: "user", content });

describe("parseChatRequest", () => {
  it("takes a history up to the message limit and refuses a longer one, naming the session header", () => {
    const turns = (count: number) => Array.from({ length: count }, (_, index) => user(`message ${index}`));
    const longest = parseChatRequest({ messages: turns(MAX_REQUEST_MESSAGES) });
    expect(longest.ok && longest.request.history.length).toBe(MAX_REQUEST_MESSAGES - 1);
    const tooLong = parseChatRequest({ messages: turns(MAX_REQUEST_MESSAGES + 1) });
    expect(tooLong).toMatchObject({ ok: false, param: "messages" });
    expect(!tooLong.ok && tooLong.message).toContain("X-Hermes-Session-Id");
  });

  it("takes the last user message as the prompt and the earlier ones as the history", () => {
    const parsed = parseChatRequest({
      model: "gpt-4o",
      messages: [{ role: "developer", content: "Be brief." }, user("Hi"), { role: "assistant", content: "Hello!" }, user([{ type: "text", text: "How" }, { type: "text", text: "are you?" }])],
      stream: true,
      stream_options: { include_usage: true },
      user: "alice@example",
      temperature: 0.2,
    });
    expect(parsed).toEqual({
      ok: true,
      request: {
        model: "gpt-4o",
        stream: true,
        includeUsage: true,
        user: "alice@example",
        history: [
          { role: "system", text: "Be brief." },
          { role: "user", text: "Hi" },
          { role: "assistant", text: "Hello!" },
        ],
        prompt: "How\nare you?",
      },
    });
  });

  it("defaults to the hermes model, no stream and no usage chunk", () => {
    expect(parseChatRequest({ messages: [user("hi")] })).toMatchObject({ ok: true, request: { model: "hermes", stream: false, includeUsage: false, history: [] } });
  });

  it("keeps an assistant turn without text (beside tool calls) as an empty turn", () => {
    const parsed = parseChatRequest({ messages: [user("a"), { role: "assistant", content: null, tool_calls: [] }, user("b")] });
    expect(parsed.ok && parsed.request.history).toEqual([{ role: "user", text: "a" }, { role: "assistant", text: "" }]);
  });

  it.each([
    [{}, "messages"],
    [{ messages: [] }, "messages"],
    [{ messages: [{ role: "assistant", content: "last" }] }, "messages"],
    [{ messages: [user("   ")] }, "messages"],
    [{ messages: [{ role: "tool", content: "42", tool_call_id: "c1" }, user("x")] }, "messages[0].role"],
    [{ messages: [{ role: "wizard", content: "x" }] }, "messages[0].role"],
    [{ messages: [user([{ type: "image_url", image_url: { url: "http://x" } }])] }, "messages[0].content"],
    [{ messages: [user(42)] }, "messages[0].content"],
    [{ messages: [user("x")], model: "" }, "model"],
    [{ messages: [user("x")], stream: "yes" }, "stream"],
    [{ messages: [user("x")], n: 2 }, "n"],
    [{ messages: [user("x")], tools: [{ type: "function", function: { name: "f" } }] }, "tools"],
    [{ messages: [user("x")], user: "../../etc" }, "user"],
  ])("refuses %j, naming %s", (body, param) => {
    const parsed = parseChatRequest(body);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.param).toBe(param);
      expect(parsed.message.length).toBeGreaterThan(10);
    }
  });

  it("refuses a body that is not an object", () => {
    expect(parseChatRequest([1, 2])).toMatchObject({ ok: false, message: "The request body must be a JSON object." });
  });
});
