import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, type Context, type FauxProviderRegistration, type Message } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { repairHistory } from "../history/repair.js";
import { fauxAgentFixture, registryWith } from "../testing/faux.js";
import { defineTool } from "../tools/types.js";
import { readCompressionNote } from "./compression-note.js";
import { compressorForRun, ContextCompressor, type ContextCompressorOptions } from "./compressor.js";
import { conversationBuilder, longOutput, messageText, type ConversationBuilder } from "./conversation-fixture.js";
import { PRUNED_OUTPUT_NOTE } from "./prune-tool-results.js";
import { estimateMessagesTokens } from "./token-estimate.js";

let faux: FauxProviderRegistration;
let prompts: string[];
beforeEach(() => {
  faux = registerFauxProvider({ models: [{ id: "summarizer", contextWindow: 64_000, maxTokens: 4_096 }] });
  prompts = [];
});
afterEach(() => {
  faux.unregister();
});

function compressor(c: ConversationBuilder, options: Partial<ContextCompressorOptions> = {}): ContextCompressor {
  return new ContextCompressor({ summarizer: { model: faux.getModel(), apiKey: "test" }, contextWindow: 40_000, now: c.now, ...options });
}

function summaries(count: number): void {
  faux.setResponses(
    Array.from({ length: count }, () => (context: Context) => {
      prompts.push(context.messages[0] ? messageText(context.messages[0]) : "");
      return fauxAssistantMessage(`## Active task\nSUMMARY-v${prompts.length}\n## Progress\nfiles read so far`);
    }),
  );
}

/** A user turn that reads a file of about 1,000 tokens. */
function turn(c: ConversationBuilder, i: number, usageInput = 0): Message[] {
  return [
    c.user(`turn ${i}: explain file ${i}`),
    c.calls({ id: `r${i}`, name: "read_file", args: { path: `src/file${i}.ts` } }),
    c.result(`r${i}`, "read_file", longOutput(`file${i}`, 64)),
    c.reply(`File ${i} does part ${i}.`, usageInput),
  ];
}

const conversation = (c: ConversationBuilder, turns: number): Message[] => Array.from({ length: turns }, (_, i) => turn(c, i)).flat();
const run = () => ({ reason: "proactive" as const, sessionId: "s-1", signal: new AbortController().signal });
const cleared = (messages: readonly Message[]) => messages.filter((m) => m.role === "toolResult" && messageText(m).endsWith(PRUNED_OUTPUT_NOTE)).length;

describe("ContextCompressor request view", () => {
  it("sends old tool output as one line by default, and the transcript as it is when pruning is off", () => {
    const c = conversationBuilder();
    const messages = conversation(c, 30);
    const view = compressor(c).requestView(messages);
    expect(cleared(view)).toBeGreaterThan(20);
    expect(estimateMessagesTokens(view)).toBeLessThan(estimateMessagesTokens(messages) / 3);
    expect(repairHistory(view).notes).toEqual([]);
    expect(compressor(c, { pruneStaleToolResults: false }).requestView(messages)).toEqual(messages);
  });

  it("decides on compression by what requests carry, not by the stored transcript", () => {
    const c = conversationBuilder();
    // About 30,000 tokens stored against a 40,000 window: over half, but the requests carry far less.
    const messages = conversation(c, 30);
    expect(estimateMessagesTokens(messages)).toBeGreaterThan(20_000);
    expect(compressor(c).shouldCompress(messages, "You are Hermes.")).toBe(false);
    expect(compressor(c, { pruneStaleToolResults: false }).shouldCompress(messages, "You are Hermes.")).toBe(true);
  });

  it("trusts a reply's token count only while no batch was cleared after it", () => {
    const c = conversationBuilder();
    const cc = compressor(c, { pruneBatchTokens: 4_000 });
    // The provider counted 25,000 tokens for the request that got the last reply.
    const before = [...conversation(c, 8), ...turn(c, 8, 25_000)];
    const stillSame = cc.requestView(before.slice(0, -1));
    expect(cleared(cc.requestView(before))).toBe(cleared(stillSame));
    expect(cc.shouldCompress(before)).toBe(true);
    // A new turn pushes a batch out of the protected turns: that count no longer describes the next request.
    const after = [...before, ...turn(c, 9), ...turn(c, 10)].slice(0, -1);
    expect(cleared(cc.requestView(after))).toBeGreaterThan(cleared(stillSame));
    expect(cc.shouldCompress(after)).toBe(false);
  });

  it("summarises the middle from its full output and keeps the tail as requests carried it", async () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 8_000, pruneBatchTokens: 1_000 });
    summaries(1);
    const messages = conversation(c, 24);
    const sentBefore = cc.requestView(messages);
    const result = await cc.compress(messages, run());
    expect(result?.summary).toContain("SUMMARY-v1");
    // The summariser saw the output itself, not the one-line stand-ins.
    expect(prompts[0]).toContain("file3 line 1 ");
    const out = result?.messages ?? [];
    expect(out.filter((m) => readCompressionNote(m)?.kind === "summary")).toHaveLength(1);
    expect(cleared(out)).toBeGreaterThan(0);
    expect(repairHistory(out).notes).toEqual([]);
    expect(out.at(-2)).toBe(messages.at(-2));
    expect(estimateMessagesTokens(cc.requestView(out))).toBeLessThan(estimateMessagesTokens(sentBefore));
  });

  it("leaves a short chat's tool output in its requests until it adds up to a tenth of the window", () => {
    const c = conversationBuilder();
    // About 1,000 tokens a turn: after 8 turns six files are stale, 6,000 tokens, under the 10,000 start of a 100,000 window.
    const cc = compressor(c, { contextWindow: 100_000 });
    const short = conversation(c, 8);
    expect(cleared(cc.requestView(short))).toBe(0);
    expect(cleared(compressor(c, { contextWindow: 100_000, pruneStartTokens: 0 }).requestView(short))).toBeGreaterThan(0);
    // Past the start the older output goes, and a longer chat never gets it back.
    const long = [...short, ...conversation(c, 10)];
    const clearedLong = cleared(cc.requestView(long));
    expect(clearedLong).toBeGreaterThanOrEqual(5);
    expect(cleared(cc.requestView([...long, ...turn(c, 99)]))).toBeGreaterThanOrEqual(clearedLong);
  });

  it("rejects knobs out of range", () => {
    const c = conversationBuilder();
    expect(() => compressor(c, { protectRecentTurns: -1 })).toThrow(RangeError);
    expect(() => compressor(c, { protectRecentTurns: 1.5 })).toThrow(RangeError);
    expect(() => compressor(c, { pruneBatchTokens: 0 })).toThrow(RangeError);
    expect(() => compressor(c, { pruneStartTokens: -1 })).toThrow(RangeError);
  });

  it("sizes the view for the run's model (its tail budget and batch follow the window)", () => {
    const c = conversationBuilder();
    const cc = compressor(c, { contextWindow: 200_000, protectRecentTurns: 0 });
    const messages = conversation(c, 12);
    const bindingWith = (contextWindow: number) => ({ model: { ...faux.getModel(), contextWindow }, apiKey: "test" });
    expect(cleared(compressorForRun(cc, { model: () => bindingWith(200_000) }).requestView?.(messages) ?? [])).toBe(0);
    expect(cleared(compressorForRun(cc, { model: () => bindingWith(8_000) }).requestView?.(messages) ?? [])).toBeGreaterThan(5);
  });
});

describe("agent loop with a compressor", () => {
  it("sends the model the request view while the run's transcript keeps every output in full", async () => {
    const fx = await fauxAgentFixture();
    try {
      const read = defineTool({
        name: "read_file",
        description: "read a file",
        parameters: Type.Object({ path: Type.String() }),
        concurrency: "parallel-safe",
        handler: async (args) => ({ content: longOutput(args.path, 64) }),
      });
      const agent = await fx.make({ tools: registryWith(read) });
      const seen: Context[] = [];
      fx.faux.setResponses([
        (context) => {
          seen.push(context);
          return fauxAssistantMessage([fauxToolCall("read_file", { path: "src/new.ts" }, { id: "new" })], { stopReason: "toolUse" });
        },
        (context) => {
          seen.push(context);
          return fauxAssistantMessage("done");
        },
      ]);
      const c = conversationBuilder();
      const history = conversation(c, 12);
      const cc = new ContextCompressor({ summarizer: { model: fx.faux.getModel(), apiKey: "test" }, contextWindow: 40_000, pruneBatchTokens: 1_000, pruneStartTokens: 0 });
      const result = await agent.run("turn 12: and the new file?", { history, compressor: cc });
      expect(result.compacted).toBe(false);
      expect(cleared(seen[0]?.messages ?? [])).toBeGreaterThan(5);
      // The output this run read is sent in full, and the run hands back every output as it came.
      expect(messageText(seen[1]?.messages.at(-1) as Message)).toContain("src/new.ts line 1 ");
      expect(cleared(result.history)).toBe(0);
      expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    } finally {
      await fx.cleanup();
    }
  });
});
