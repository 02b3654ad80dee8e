import { describe, expect, it } from "vitest";
import { chatActionOptions, sendMessageOptions, telegramChatId } from "./outbound-params.js";

describe("outbound parameters", () => {
  it("sends formatted text as HTML into the topic, quoting the message answered", () => {
    expect(sendMessageOptions({ chatId: "-1001", threadId: "11", replyToMessageId: "31" }, "markdown")).toEqual({
      parse_mode: "HTML",
      message_thread_id: 11,
      reply_parameters: { message_id: 31, allow_sending_without_reply: true },
    });
    expect(sendMessageOptions({ chatId: "7" }, "plain")).toEqual({});
  });

  it("ignores ids that are not Telegram message ids", () => {
    expect(sendMessageOptions({ chatId: "7", replyToMessageId: "500:retry:1" }, "plain")).toEqual({});
    expect(chatActionOptions({ chatId: "7", threadId: "12" })).toEqual({ message_thread_id: 12 });
  });

  it("passes numeric chat ids as numbers and usernames as text", () => {
    expect([telegramChatId("-1001234"), telegramChatId("@news")]).toEqual([-1001234, "@news"]);
  });
});
