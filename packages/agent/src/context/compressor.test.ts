import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, registerFauxProvider, type Context, type FauxProviderRegistration, type Message } from "@mariozechner/pi-ai";
import { repairHistory } from "../history/repair.js";
import { readCompressionNote, summaryNoteMessage } from "./compression-note.js";
import { asCompressMessages, compressorForRun, ContextCompressor, type ContextCompressorOptions } from "./compressor.js";
import { conversationBuilder, longOutput, messageText, type ConversationBuilder } from "./conversation-fixture.js";
import { PRUNED_OUTPUT_NOTE } from "./prune-tool-results.js";
import { estimateContextTokens, estimateMessagesTokens } from "./token-estimate.js";

let faux: FauxProviderRegistration;
let prompts: string[];
beforeEach(() => {
  faux = registerFauxProvider({ models: [{ id: "summarizer", contextWindow: 64_000, maxTokens: 4_096 }] });
  prompts = [];
});
afterEach(() => {
  faux.unregister();
});

const GOAL = "Goal: migrate the billing service from REST to gRPC without changing its public API.";

function promptOf(context: Context): string {
  const first = context.messages[0];
  return first ? messageText(first) : "";
}

/** A summariser that records each prompt and numbers its summaries, so a later prompt can be checked for the earlier one. */
function numberedSummaries(count: number): void {
  faux.setResponses(
    Array.from({ length: count }, () => (context: Context) => {
      prompts.push(promptOf(context));
      return fauxAssistantMessage(
        `## Active task\nSUMMARY-v${prompts.length}\n## Goal\nMigrate billing to gRPC\n## Progress\nmodules done so far\n## Next steps\ncontinue`,
      );
    }),
  );
}

/** The summary stage on its own: requests carry the transcript as it is unless a test turns stale-output pruning on. */
function compressor(c: ConversationBuilder, options: Partial<ContextCompressorOptions> = {}): ContextCompressor {
  return new ContextCompressor({ summarizer: { model: faux.getModel(), apiKey: "test" }, contextWindow: 16_000, now: c.now, pruneStaleToolResults: false, ...options });
}

const run = (reason: "proactive" | "overflow" = "proactive") => ({ reason, sessionId: "s-1", signal: new AbortController().signal });

function turn(c: ConversationBuilder, i: number): Message[] {
  const terminal = { id: `t${i}`, name: "terminal", args: { command: `npm test -- module${i}` } };
  const read = { id: `r${i}`, name: "read_file", args: { path: `src/module${i}.ts` } };
  const calls = i % 5 === 0 ? [terminal, read] : i % 2 === 0 ? [terminal] : [read];
  return [
    c.user(`Step ${i}: continue with module ${i}.`),
    c.calls(...calls),
    ...calls.map((call) =>
      call.name === "terminal"
        ? c.result(call.id, "terminal", `${longOutput(`test module${i}`, 60)}\n\nexit code: ${i % 3 === 0 ? 1 : 0}`)
        : c.result(call.id, "read_file", longOutput(`src/module${i}.ts`, 60)),
    ),
    c.reply(`Module ${i} done.`),
  ];
}

function opening(c: ConversationBuilder): Message[] {
  return [c.user(GOAL), c.calls({ id: "readme", name: "read_file", args: { path: "README.md" } }), c.result("readme", "read_file", longOutput("README", 40)), c.reply("I have read the README.")];
}

function notes(messages: readonly Message[]) {
  return messages.map(readCompressionNote).filter((n) => n !== undefined);
}

describe("ContextCompressor over a growing 60-turn conversation", () => {
  it("compresses whenever asked to, keeps the protocol valid and the goal in the head, and updates its summary", async () => {
    const c = conversationBuilder();
    const window = 16_000;
    const cc = compressor(c, { contextWindow: window });
    numberedSummaries(100);
    let messages: Message[] = [];
    const results = [];
    for (const message of [...opening(c), ...Array.from({ length: 60 }, (_, i) => turn(c, i + 1)).flat()]) {
      messages = [...messages, message];
      if (!cc.shouldCompress(messages, "You are Hermes.")) continue;
      const result = await cc.compress(messages, run());
      expect(result).not.toBeNull();
      if (!result) continue;
      results.push(result);
      expect(result.fallback).toBeUndefined();
      expect(result.savedTokens).toBeGreaterThan(0);
      expect(repairHistory(result.messages).notes).toEqual([]);
      expect(estimateMessagesTokens(result.messages)).toBeLessThan(0.5 * window);
      messages = result.messages;
    }

    expect(results.length).toBeGreaterThanOrEqual(3);
    expect(repairHistory(messages).notes).toEqual([]);
    expect(messages[0]).toMatchObject({ role: "user", content: GOAL });
    expect(messageText(messages[2] as Message)).toBe(`[read_file] read README.md (2,439 chars) ${PRUNED_OUTPUT_NOTE}`);
    expect(notes(messages)).toHaveLength(1);
    expect(notes(messages)[0]?.body).toContain(`SUMMARY-v${results.length}`);
    expect(cc.status()).toEqual({ thrashing: false });

    // The newest tool output is still there in full.
    const lastResult = messages.filter((m) => m.role === "toolResult").at(-1);
    expect(messageText(lastResult as Message)).toContain("line 60 ");

    expect(prompts).toHaveLength(results.length);
    expect(prompts[0]).not.toContain("<previous-summary>");
    for (let k = 1; k < prompts.length; k += 1) {
      expect(prompts[k]).toContain("UPDATE the summary");
      expect(prompts[k]).toContain(`<previous-summary>\n## Active task\nSUMMARY-v${k}\n`);
    }
    for (const prompt of prompts) {
      expect(prompt).toContain("<tool-output>");
      expect(prompt).not.toMatch(/ line 30 ·/);
    }
  });
});

describe("ContextCompressor.compress", () => {
  function longConversation(c: ConversationBuilder, turns = 12): Message[] {
    return [...opening(c), ...Array.from({ length: turns }, (_, i) => turn(c, i + 1)).flat()];
  }

  it("returns null without a model call when there is no middle to compress", async () => {
    const c = conversationBuilder();
    numberedSummaries(1);
    const result = await compressor(c).compress([c.user(GOAL), c.reply("ok"), c.user("next"), c.reply("fine")], run());
    expect(result).toBeNull();
    expect(faux.state.callCount).toBe(0);
  });

  it("updates a previous summary found in the middle and replaces it, rather than stacking summaries", async () => {
    const c = conversationBuilder();
    numberedSummaries(1);
    const head = opening(c);
    const previous = summaryNoteMessage({ summary: "## Goal\nPRIOR-SUMMARY: modules 1-9 migrated", replacedMessages: 30, timestamp: c.now() });
    const messages = [...head, previous, ...Array.from({ length: 10 }, (_, i) => turn(c, i + 10)).flat()];
    const result = await compressor(c).compress(messages, run());
    expect(result?.summary).toContain("SUMMARY-v1");
    expect(prompts[0]).toContain("UPDATE the summary");
    expect(prompts[0]).toContain("<previous-summary>\n## Goal\nPRIOR-SUMMARY: modules 1-9 migrated\n</previous-summary>");
    expect(notes(result?.messages ?? [])).toHaveLength(1);
    expect(notes(result?.messages ?? [])[0]?.body).not.toContain("PRIOR-SUMMARY");
  });

  it("keeps the latest user request verbatim when it falls into the compressed middle", async () => {
    const c = conversationBuilder();
    numberedSummaries(1);
    const request = c.user("Please port every remaining module, then run the full suite.");
    const work = Array.from({ length: 12 }, (_, i) => {
      const id = `w${i}`;
      return [c.calls({ id, name: "terminal", args: { command: `port ${i}` } }), c.result(id, "terminal", `${longOutput(`port ${i}`, 60)}\n\nexit code: 0`)];
    }).flat();
    const result = await compressor(c).compress([...opening(c), request, ...work], run());
    const note = result?.messages.find((m) => readCompressionNote(m));
    expect(messageText(note as Message)).toContain("## Latest user request (verbatim)\n> Please port every remaining module, then run the full suite.");
  });

  it.each([
    ["a provider error", () => fauxAssistantMessage([], { stopReason: "error", errorMessage: "summariser overloaded" })],
    ["an empty reply", () => fauxAssistantMessage("")],
    ["an aborted summary call", () => fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "timed out" })],
  ])("falls back to dropping the middle after %s", async (_label, reply) => {
    const c = conversationBuilder();
    faux.setResponses([reply()]);
    const messages = longConversation(c);
    const result = await compressor(c).compress(messages, run("overflow"));
    expect(result?.fallback).toBe("dropped_middle");
    expect(result?.summary).toBeUndefined();
    expect(result?.savedTokens).toBeGreaterThan(0);
    const out = result?.messages ?? [];
    expect(out[0]).toMatchObject({ content: GOAL });
    expect(notes(out)).toEqual([expect.objectContaining({ kind: "dropped" })]);
    expect(repairHistory(out).notes).toEqual([]);
    expect(out.at(-1)).toBe(messages.at(-1));
  });

  it("keeps an older summary when the new one fails", async () => {
    const c = conversationBuilder();
    faux.setResponses([fauxAssistantMessage([], { stopReason: "error", errorMessage: "down" })]);
    const previous = summaryNoteMessage({ summary: "## Goal\nKEEP-ME", replacedMessages: 30, timestamp: c.now() });
    const messages = [...opening(c), previous, ...Array.from({ length: 10 }, (_, i) => turn(c, i + 10)).flat()];
    const result = await compressor(c).compress(messages, run());
    expect(result?.fallback).toBe("dropped_middle");
    expect(notes(result?.messages ?? [])).toEqual([expect.objectContaining({ kind: "dropped", body: "## Goal\nKEEP-ME" })]);
  });

  it("leaves the transcript alone when the run is cancelled before or during the summary", async () => {
    const c = conversationBuilder();
    const messages = longConversation(c);
    const cancelled = new AbortController();
    cancelled.abort();
    numberedSummaries(1);
    expect(await compressor(c).compress(messages, { reason: "overflow", sessionId: "s", signal: cancelled.signal })).toBeNull();
    expect(faux.state.callCount).toBe(0);

    const during = new AbortController();
    faux.setResponses([
      () => {
        during.abort();
        return fauxAssistantMessage("## Goal\nlate");
      },
    ]);
    expect(await compressor(c).compress(messages, { reason: "overflow", sessionId: "s", signal: during.signal })).toBeNull();
  });

  it("is exposed to the loop's overflow hook through asCompressMessages", async () => {
    const c = conversationBuilder();
    numberedSummaries(1);
    const hook = asCompressMessages(compressor(c), "s-9");
    const messages = longConversation(c);
    const out = await hook(messages, { reason: "overflow", signal: new AbortController().signal });
    expect(out?.some((m) => readCompressionNote(m)?.kind === "summary")).toBe(true);
    expect(await hook(out?.slice(0, 2) ?? [], { reason: "overflow", signal: new AbortController().signal })).toBeNull();
  });

  it("rejects a nonsensical configuration", () => {
    const c = conversationBuilder();
    expect(() => compressor(c, { contextWindow: 0 })).toThrow(RangeError);
    expect(() => compressor(c, { threshold: 1.5 })).toThrow(RangeError);
  });
});

describe("ContextCompressor.shouldCompress", () => {
  it("compares the estimate with threshold × window, preferring the provider's token count", () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 16_000 });
    expect(cc.shouldCompress([c.user(GOAL), c.reply("ok", 7_000), c.user("more")])).toBe(false);
    expect(cc.shouldCompress([c.user(GOAL), c.reply("ok", 8_100), c.user("more")])).toBe(true);
    expect(cc.shouldCompress([c.user("x".repeat(32_000))])).toBe(true);
    expect(cc.shouldCompress([c.user("x".repeat(20_000))], "s".repeat(12_000))).toBe(true);
  });

  it("ignores a provider count from before the last compression", () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 16_000 });
    const staleReply = c.reply("ok", 15_000);
    const note = summaryNoteMessage({ summary: "## Goal\ng", replacedMessages: 40, timestamp: c.now() });
    expect(cc.shouldCompress([c.user(GOAL), c.reply("hi"), note, staleReply, c.user("next")])).toBe(false);
  });
});

describe("anti-thrash", () => {
  /** A summariser whose summaries are nearly as long as what they replace, so compression barely helps. */
  function verboseSummaries(count: number): void {
    faux.setResponses(
      Array.from({ length: count }, () => (context: Context) => {
        const prompt = promptOf(context);
        prompts.push(prompt);
        return fauxAssistantMessage(`## Goal\n${"d".repeat(Math.floor(prompt.length * 0.9))}`);
      }),
    );
  }

  function pair(c: ConversationBuilder, i: number): Message[] {
    return [c.user(`question ${i}`), c.reply(`answer ${i} ${"a".repeat(2_000)}`)];
  }

  it("stops proactive compression after two weak compressions, still tries overflow once, and re-arms on growth or reset", async () => {
    const c = conversationBuilder();
    const window = 10_000;
    const cc = compressor(c, { contextWindow: window, tailTokenBudget: 2_500 });
    verboseSummaries(10);
    let messages: Message[] = [c.user(GOAL), c.reply("ok"), ...Array.from({ length: 10 }, (_, i) => pair(c, i)).flat()];

    let weak = 0;
    for (let i = 10; weak < 2 && i < 30; i += 1) {
      if (cc.shouldCompress(messages)) {
        const before = estimateMessagesTokens(messages);
        const result = await cc.compress(messages, run());
        weak += 1;
        if (result) {
          expect(result.savedTokens / before).toBeLessThan(0.1);
          messages = result.messages;
        }
        if (weak === 1) expect(cc.status()).toEqual({ thrashing: false });
      }
      messages = [...messages, ...pair(c, i)];
    }
    expect(weak).toBe(2);

    expect(estimateContextTokens(messages)).toBeGreaterThanOrEqual(0.5 * window);
    expect(cc.shouldCompress(messages)).toBe(false);
    expect(cc.status()).toEqual({ thrashing: true, message: expect.stringContaining("/new") });
    const calls = faux.state.callCount;
    expect(await cc.compress(messages, run("proactive"))).toBeNull();
    expect(faux.state.callCount).toBe(calls);

    await cc.compress(messages, run("overflow"));
    expect(faux.state.callCount).toBe(calls + 1);
    expect(await cc.compress(messages, run("overflow"))).toBeNull();
    expect(faux.state.callCount).toBe(calls + 1);

    cc.reset();
    expect(cc.status()).toEqual({ thrashing: false });
    expect(cc.shouldCompress(messages)).toBe(true);
  });

  it("re-arms proactive compression once the conversation has grown by a margin", async () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 10_000, tailTokenBudget: 5_000 });
    verboseSummaries(10);
    // With a tail this large little is left in the middle, so every compression saves well under 10%.
    let messages: Message[] = [c.user(GOAL), c.reply("ok"), ...Array.from({ length: 12 }, (_, i) => pair(c, i)).flat()];
    for (let attempt = 0; attempt < 2; attempt += 1) {
      expect(cc.shouldCompress(messages)).toBe(true);
      const result = await cc.compress(messages, run());
      expect(result?.summary).toBeDefined();
      messages = result?.messages ?? messages;
    }
    expect(faux.state.callCount).toBe(2);
    expect(cc.status().thrashing).toBe(true);
    expect(cc.shouldCompress(messages)).toBe(false);
    messages = [...messages, ...pair(c, 50)];
    expect(cc.shouldCompress(messages)).toBe(false);
    messages = [...messages, ...pair(c, 51), ...pair(c, 52)];
    expect(cc.shouldCompress(messages)).toBe(true);
    expect(cc.status()).toEqual({ thrashing: false });
  });

  it("counts being over the threshold with nothing to compress as a weak compression", async () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 10_000 });
    numberedSummaries(1);
    const messages = [c.user(GOAL), c.reply("ok"), c.user(`paste: ${"p".repeat(24_000)}`)];
    expect(cc.shouldCompress(messages)).toBe(true);
    expect(await cc.compress(messages, run())).toBeNull();
    expect(cc.shouldCompress(messages)).toBe(true);
    expect(await cc.compress(messages, run())).toBeNull();
    expect(cc.shouldCompress(messages)).toBe(false);
    expect(cc.status().thrashing).toBe(true);
    expect(faux.state.callCount).toBe(0);
  });
});

describe("compressorForRun", () => {
  const conversation = (c: ConversationBuilder): Message[] => [...opening(c), ...Array.from({ length: 12 }, (_, i) => turn(c, i + 1)).flat()];
  const bindingWith = (contextWindow: number) => ({ model: { ...faux.getModel(), contextWindow }, apiKey: "test" });

  it("measures the threshold against the run's model, which may differ from the configured window and switch mid-run", () => {
    const c = conversationBuilder();
    // Configured for a small custom endpoint (HERMES_CONTEXT_WINDOW=16000); the run uses an override of 200k.
    const cc = compressor(c, { contextWindow: 16_000 });
    const messages = [c.user(GOAL), c.reply("ok", 12_000), c.user("more")];
    let current = bindingWith(200_000);
    const forRun = compressorForRun(cc, { model: () => current });
    expect(cc.shouldCompress(messages)).toBe(true);
    expect(forRun.shouldCompress(messages)).toBe(false);
    current = bindingWith(16_000);
    expect(forRun.shouldCompress(messages)).toBe(true);
  });

  it("keeps a tail sized by the run's window: a larger model keeps more of the recent conversation verbatim", async () => {
    const c = conversationBuilder();
    numberedSummaries(2);
    const messages = conversation(c);
    const small = await compressorForRun(compressor(c), { model: () => bindingWith(16_000) }).compress(messages, run());
    const large = await compressorForRun(compressor(c), { model: () => bindingWith(40_000) }).compress(messages, run());
    expect(small && large).toBeTruthy();
    expect(large?.messages.length ?? 0).toBeGreaterThan(small?.messages.length ?? 0);
  });

  it("shows the memory the messages about to be summarised, and compresses even when that hook throws", async () => {
    const c = conversationBuilder();
    numberedSummaries(2);
    const messages = conversation(c);
    const seen: (readonly Message[])[] = [];
    const result = await compressorForRun(compressor(c), { model: () => bindingWith(16_000), onPreCompress: (middle) => seen.push(middle) }).compress(messages, run());
    expect(seen).toHaveLength(1);
    const middle = seen[0] ?? [];
    expect(middle.length).toBeGreaterThan(0);
    // Exactly the messages the summary replaced: none of them is in the result, the goal at the head is not among them.
    expect(middle).not.toContain(messages[0]);
    for (const message of middle) expect(result?.messages).not.toContain(message);
    expect(readCompressionNote(result?.messages.find((m) => readCompressionNote(m)) as Message)?.body).toContain("SUMMARY-v1");

    const failing = compressorForRun(compressor(c), {
      model: () => bindingWith(16_000),
      onPreCompress: () => {
        throw new Error("provider bug");
      },
    });
    const throwing = await failing.compress(messages, run());
    expect(throwing?.summary).toContain("SUMMARY-v2");
  });
});
