import type { Message } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { repairHistory } from "../history/repair.js";
import { conversationBuilder, longOutput, messageText, type ConversationBuilder } from "./conversation-fixture.js";
import { PRUNED_ACTION_NOTE, PRUNED_OUTPUT_NOTE } from "./prune-tool-results.js";
import { summaryNoteMessage } from "./compression-note.js";
import { protectedStart, staleOutputView, staleUsageBefore, type StaleOutputOptions } from "./stale-tool-results.js";
import { estimateMessageTokens } from "./token-estimate.js";

const OPTIONS: StaleOutputOptions = { protectRecentTurns: 2, tailTokenBudget: 50_000, batchTokens: 2_000 };

/** One user turn: a file read (about 1,000 tokens of output), a short note tool, then the answer. */
function turn(c: ConversationBuilder, i: number): Message[] {
  return [
    c.user(`turn ${i}: what does file ${i} do?`),
    c.calls({ id: `r${i}`, name: "read_file", args: { path: `src/file${i}.ts` } }, { id: `n${i}`, name: "think", args: { thought: `look at file ${i}` } }),
    c.result(`r${i}`, "read_file", longOutput(`file${i}`, 64)),
    c.result(`n${i}`, "think", "noted"),
    c.reply(`File ${i} handles part ${i}.`),
  ];
}

function conversation(turns: number): Message[] {
  const c = conversationBuilder();
  return Array.from({ length: turns }, (_, i) => turn(c, i)).flat();
}

function staleUnprunedTokens(messages: readonly Message[], view: readonly Message[]): number {
  const end = protectedStart(messages, OPTIONS);
  let total = 0;
  for (let i = 0; i < end; i += 1) {
    const message = messages[i] as Message;
    if (message.role === "toolResult" && view[i] === message && messageText(message).length > 400) total += estimateMessageTokens(message);
  }
  return total;
}

describe("staleOutputView", () => {
  it("replaces old read_file output by its description and keeps the two newest turns, ids and pairing intact", () => {
    const messages = conversation(12);
    const view = staleOutputView(messages, OPTIONS);
    expect(view.pruned).toBeGreaterThan(0);
    const first = view.messages[2];
    expect(messageText(first as Message)).toBe(`[read_file] read src/file0.ts (${(64 * 60 + 63).toLocaleString("en-US")} chars) ${PRUNED_OUTPUT_NOTE}`);
    expect(first).toMatchObject({ role: "toolResult", toolCallId: "r0", toolName: "read_file", isError: false });
    // Short results, user and assistant messages are the very same objects.
    expect(view.messages[3]).toBe(messages[3]);
    expect(view.messages[0]).toBe(messages[0]);
    expect(view.messages[1]).toBe(messages[1]);
    // The two newest turns (the one being answered and the one before) keep their output.
    for (const message of messages.slice(-10)) expect(view.messages).toContain(message);
    expect(repairHistory(view.messages).notes).toEqual([]);
    expect(view.savedTokens).toBeGreaterThan(view.pruned * 800);
    // The stored transcript is not touched.
    expect(messageText(messages[2] as Message)).toContain("file0 line 1 ");
  });

  it("clears stale output a batch at a time: between batches each view starts with the previous one byte for byte", () => {
    const messages = conversation(40);
    let previous: string | undefined;
    let batches = 0;
    let lastPruned = 0;
    for (let end = 1; end <= messages.length; end += 1) {
      const history = messages.slice(0, end);
      const view = staleOutputView(history, OPTIONS);
      const wire = JSON.stringify(view.messages);
      if (view.pruned !== lastPruned) {
        batches += 1;
        // A batch clears about batchTokens of output at once, never one result at a time.
        expect(view.pruned - lastPruned).toBeGreaterThanOrEqual(2);
        lastPruned = view.pruned;
      } else if (previous !== undefined) {
        expect(wire.startsWith(previous.slice(0, -1))).toBe(true);
      }
      previous = wire;
      // What is left of the stale output stays under one batch (plus one result, ~1,000 tokens, straddling the line).
      expect(staleUnprunedTokens(history, view.messages)).toBeLessThan(OPTIONS.batchTokens + 1_100);
    }
    expect(batches).toBeGreaterThanOrEqual(10);
    expect(batches).toBeLessThanOrEqual(20);
  });

  it("is a function of the transcript alone: a copy of the history (as loaded again from the store) gives the same view", () => {
    const messages = conversation(25);
    const first = JSON.stringify(staleOutputView(messages, OPTIONS).messages);
    expect(JSON.stringify(staleOutputView(structuredClone(messages), OPTIONS).messages)).toBe(first);
    expect(JSON.stringify(staleOutputView(messages, OPTIONS).messages)).toBe(first);
    // A different minimum is worked out afresh, not taken from what the first views remembered.
    expect(staleOutputView(messages, { ...OPTIONS, minChars: 100_000 }).pruned).toBe(0);
  });

  it("clears nothing before the stale output reaches startTokens, then a batch at a time and never less", () => {
    const start = { ...OPTIONS, startTokens: 8_000 };
    const messages = conversation(30);
    let previous = 0;
    let started = false;
    for (let end = 1; end <= messages.length; end += 1) {
      const history = messages.slice(0, end);
      const view = staleOutputView(history, start);
      const unpruned = staleUnprunedTokens(history, view.messages);
      if (!started && view.pruned === 0) expect(unpruned).toBeLessThan(8_000 + 1_100);
      if (view.pruned > 0) {
        started = true;
        expect(unpruned).toBeLessThan(OPTIONS.batchTokens + 1_100);
      }
      expect(view.pruned).toBeGreaterThanOrEqual(previous);
      previous = view.pruned;
    }
    expect(started).toBe(true);
    // Without it, clearing starts as soon as one batch is stale.
    const early = messages.slice(0, 5 * 6);
    expect(staleOutputView(early, start).pruned).toBe(0);
    expect(staleOutputView(early, OPTIONS).pruned).toBeGreaterThan(0);
  });

  it("prunes nothing while the conversation has no more turns than it protects", () => {
    const messages = conversation(2);
    expect(staleOutputView(messages, { ...OPTIONS, batchTokens: 1 }).pruned).toBe(0);
  });

  it("clears the older output of one long run past the tail budget, but never the newest step's results", () => {
    const c = conversationBuilder();
    const steps = Array.from({ length: 12 }, (_, i) => [
      c.calls({ id: `t${i}`, name: "terminal", args: { command: `make step${i}` } }),
      c.result(`t${i}`, "terminal", `${longOutput(`step${i}`, 64)}\n\nexit code: 0`),
    ]).flat();
    const messages = [c.user("build everything"), ...steps];
    const view = staleOutputView(messages, { protectRecentTurns: 2, tailTokenBudget: 3_000, batchTokens: 1_000 });
    expect(view.pruned).toBeGreaterThanOrEqual(6);
    expect(messageText(view.messages[2] as Message)).toBe(`[terminal] ran "make step0" → exit 0, 66 lines ${PRUNED_ACTION_NOTE}`);
    expect(view.messages.at(-1)).toBe(messages.at(-1));

    const huge = [c.user("one big read"), c.calls({ id: "big", name: "read_file", args: { path: "big.log" } }), c.result("big", "read_file", longOutput("big", 400))];
    expect(staleOutputView(huge, { protectRecentTurns: 2, tailTokenBudget: 100, batchTokens: 1 }).pruned).toBe(0);
  });

  it("clears image results whatever their text length", () => {
    const c = conversationBuilder();
    const shot = (i: number): Message[] => [
      c.user(`look ${i}`),
      c.calls({ id: `s${i}`, name: "screenshot", args: { url: `https://example.com/${i}` } }),
      { ...c.result(`s${i}`, "screenshot", ""), content: [{ type: "image" as const, data: "AAAA", mimeType: "image/png" }] },
      c.reply(`seen ${i}`),
    ];
    const messages = [0, 1, 2, 3].flatMap(shot);
    const view = staleOutputView(messages, { ...OPTIONS, batchTokens: 1 });
    expect(view.messages[2]).toMatchObject({ content: [{ type: "text", text: `[screenshot] {"url":"https://example.com/0"} → 0 chars, 1 image ${PRUNED_ACTION_NOTE}` }] });
    expect(messageText(view.messages[6] as Message)).toContain('{"url":"https://example.com/1"} → 0 chars, 1 image');
    expect(view.messages[14]).toBe(messages[14]);
  });
});

describe("staleUsageBefore", () => {
  const prunedIn = (messages: readonly Message[]) => staleOutputView(messages, OPTIONS).pruned;

  it("keeps the newest reply's count while the view it answered has the same batches, and drops it after a new batch", () => {
    const c = conversationBuilder();
    const messages = [...Array.from({ length: 6 }, (_, i) => turn(c, i)).flat().slice(0, -1), c.reply("counted", 9_000)];
    const counted = messages.at(-1) as Message;
    expect(staleUsageBefore(messages, prunedIn(messages), prunedIn)).toBeUndefined();
    const later = [...messages, ...turn(c, 6), ...turn(c, 7)].slice(0, -1);
    expect(prunedIn(later)).toBeGreaterThan(prunedIn(messages));
    expect(staleUsageBefore(later, prunedIn(later), prunedIn)).toBe(counted.timestamp);
  });

  it("treats every reply from before the latest compression as stale", () => {
    const c = conversationBuilder();
    const old = c.reply("before", 9_000);
    const note = summaryNoteMessage({ summary: "## Goal\nx", replacedMessages: 10, timestamp: c.now() });
    const messages = [c.user("hi"), old, note, c.user("next")];
    expect(staleUsageBefore(messages, 0, prunedIn)).toBe(note.timestamp);
  });
});
