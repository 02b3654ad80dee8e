import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { summaryNoteMessage } from "./compression-note.js";
import { conversationBuilder, longOutput } from "./conversation-fixture.js";
import { isSafeBoundary, selectRegions } from "./select-regions.js";
import { estimateMessagesTokens } from "./token-estimate.js";

function mixedConversation(): Message[] {
  const c = conversationBuilder();
  const messages: Message[] = [c.user("Goal: ship the release"), c.calls({ id: "h1", name: "read_file", args: { path: "plan.md" } }), c.result("h1", "read_file", "plan")];
  for (let turn = 0; turn < 8; turn += 1) {
    messages.push(c.user(`turn ${turn}`));
    const ids = Array.from({ length: (turn % 3) + 1 }, (_, k) => `t${turn}_${k}`);
    messages.push(c.calls(...ids.map((id) => ({ id, name: "terminal", args: { command: `step ${id}` } }))));
    for (const id of ids) messages.push(c.result(id, "terminal", `${longOutput(id, 10 + turn * 3)}\n\nexit code: 0`));
    messages.push(c.reply(`done with turn ${turn}`));
  }
  return messages;
}

describe("selectRegions", () => {
  it("extends the head over the results of a first reply that called tools", () => {
    const messages = mixedConversation();
    const { headEnd } = selectRegions(messages, { protectHeadMessages: 2, tailTokenBudget: 500 });
    expect(headEnd).toBe(3);
    expect(messages[headEnd]?.role).toBe("user");
  });

  it("never cuts between a call and its results, whatever the budget", () => {
    const messages = mixedConversation();
    const total = estimateMessagesTokens(messages);
    for (let budget = 0; budget <= total; budget += 37) {
      for (const head of [0, 1, 2, 3, 4, 5]) {
        const { headEnd, tailStart } = selectRegions(messages, { protectHeadMessages: head, tailTokenBudget: budget });
        expect(isSafeBoundary(messages, headEnd), `head ${head} budget ${budget}`).toBe(true);
        expect(isSafeBoundary(messages, tailStart), `head ${head} budget ${budget}`).toBe(true);
        expect(tailStart).toBeGreaterThanOrEqual(headEnd);
        expect(tailStart).toBeLessThan(messages.length);
      }
    }
  });

  it("moves the tail boundary back to the assistant message when the budget ends inside a parallel-call group", () => {
    const c = conversationBuilder();
    const messages: Message[] = [
      c.user("goal"),
      c.reply("ok"),
      c.user("do three things"),
      c.calls({ id: "p1", name: "terminal", args: { command: "a" } }, { id: "p2", name: "terminal", args: { command: "b" } }, { id: "p3", name: "terminal", args: { command: "c" } }),
      c.result("p1", "terminal", "x".repeat(4_000)),
      c.result("p2", "terminal", "x".repeat(4_000)),
      c.result("p3", "terminal", "x".repeat(400)),
    ];
    const { tailStart } = selectRegions(messages, { protectHeadMessages: 2, tailTokenBudget: 300 });
    expect(tailStart).toBe(3);
    expect(messages[tailStart]?.role).toBe("assistant");
  });

  it("keeps the newest message even when it alone exceeds the tail budget", () => {
    const c = conversationBuilder();
    const messages: Message[] = [c.user("goal"), c.reply("ok"), c.user("a"), c.reply("b"), c.user("z".repeat(40_000))];
    expect(selectRegions(messages, { protectHeadMessages: 2, tailTokenBudget: 10 })).toEqual({ headEnd: 2, tailStart: 4 });
  });

  it("leaves an empty middle when everything fits the head and tail", () => {
    const c = conversationBuilder();
    const messages: Message[] = [c.user("goal"), c.reply("ok"), c.user("q"), c.reply("a")];
    const { headEnd, tailStart } = selectRegions(messages, { protectHeadMessages: 2, tailTokenBudget: 10_000 });
    expect(tailStart).toBe(headEnd);
  });

  it("never freezes an earlier summary in the head, so the next summary can absorb it", () => {
    const c = conversationBuilder();
    const note = summaryNoteMessage({ summary: "## Goal\ng", replacedMessages: 9, timestamp: c.now() });
    const messages: Message[] = [c.user("goal"), c.reply("ok"), note, c.user("q"), c.reply("a"), c.user("q2")];
    const { headEnd } = selectRegions(messages, { protectHeadMessages: 4, tailTokenBudget: 5 });
    expect(headEnd).toBe(2);
  });
});
