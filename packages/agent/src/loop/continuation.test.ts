import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall, type Context, type ToolResultMessage, type Usage } from "@mariozechner/pi-ai";
import { fauxAgentFixture, recordingTool, registryWith, type FauxAgentFixture } from "../testing/faux.js";
import { CUT_OFF_CALL_TEXT, joinContinuation } from "./continuation.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

const cut = (text: string) => fauxAssistantMessage(text, { stopReason: "length" });

function lastUserText(context: Context | undefined): string {
  return JSON.stringify(context?.messages.at(-1));
}

describe("replies cut off by the output token limit", () => {
  it("asks the model to go on once and delivers the joined answer", async () => {
    const agent = await fx.make();
    let continued: Context | undefined;
    fx.faux.setResponses([
      cut("The three steps are: first, mix the "),
      (context) => {
        continued = context;
        return fauxAssistantMessage("flour; second, bake; third, eat.");
      },
    ]);
    const result = await agent.run("how?");
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("The three steps are: first, mix the flour; second, bake; third, eat.");
    // The cut-off draft goes back as the model's own turn, followed by the request to continue.
    expect(continued?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(continued?.messages[1])).toContain("mix the ");
    expect(lastUserText(continued)).toMatch(/cut off by the output token limit/);
    // The transcript keeps one whole answer, without the request to continue.
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(result.newMessages[1])).toContain("mix the flour; second");
  });

  it("continues twice, counts every call in usage and steps, and streams each part once", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([cut("Alpha, "), cut("beta, "), fauxAssistantMessage("gamma.")]);
    const deltas: string[] = [];
    const usages: Usage[] = [];
    const statuses: string[] = [];
    const result = await agent.run("list", {
      callbacks: { onTextDelta: (d) => deltas.push(d), onStep: (e) => { usages.push(e.usage); }, onStatus: (e) => statuses.push(e.kind) },
    });
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("Alpha, beta, gamma.");
    expect(deltas.join("")).toBe("Alpha, beta, gamma.");
    expect(result.steps).toBe(3);
    expect(usages).toHaveLength(3);
    expect(result.usage.output).toBe(usages.reduce((n, u) => n + u.output, 0));
    expect(result.usage.output).toBeGreaterThan(usages[2]?.output ?? 0);
    expect(result.usage.input).toBe(usages.reduce((n, u) => n + u.input, 0));
    expect(statuses).toEqual(["continuation", "continuation"]);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("delivers what there is with a note when it is still cut off after two continuations", async () => {
    const agent = await fx.make();
    fx.faux.setResponses([cut("One "), cut("two "), cut("three"), fauxAssistantMessage("never asked")]);
    const deltas: string[] = [];
    const result = await agent.run("count", { callbacks: { onTextDelta: (d) => deltas.push(d) } });
    expect(result.stopReason).toBe("OUTPUT_TRUNCATED");
    expect(result.text).toMatch(/^One two three\n\n\(This answer was cut off: .*output limit.*"continue"/);
    expect(deltas.join("")).toBe("One two three");
    expect(fx.faux.getPendingResponseCount()).toBe(1);
    // The partial answer stays in the transcript, so "continue" next turn has something to continue.
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(result.newMessages[1])).toContain("One two three");
    expect(JSON.stringify(result.newMessages[1])).not.toContain("was cut off");
  });

  it("never runs a cut-off tool call and tells the model, keeping the transcript valid", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("write", "parallel-safe", log, { delayMs: 1 })) });
    let after: Context | undefined;
    fx.faux.setResponses([
      fauxAssistantMessage([fauxText("Writing it."), fauxToolCall("write", { path: "big.txt" }, { id: "call_cut" })], { stopReason: "length" }),
      (context) => {
        after = context;
        return fauxAssistantMessage([fauxToolCall("write", { path: "small.txt" }, { id: "call_ok" })], { stopReason: "toolUse" });
      },
      fauxAssistantMessage("Wrote small.txt."),
    ]);
    const result = await agent.run("write a file");
    expect(log).toEqual(["start write(small.txt)", "end write(small.txt)"]);
    expect(result.stopReason).toBe("completed");
    expect(result.text).toBe("Wrote small.txt.");
    const told = after?.messages.find((m): m is ToolResultMessage => m.role === "toolResult" && m.toolCallId === "call_cut");
    expect(told?.isError).toBe(true);
    expect(JSON.stringify(told?.content)).toContain(CUT_OFF_CALL_TEXT.slice(0, 40));
    expect(after?.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
  });

  it("runs none of the calls when the last allowed reply is cut off with a tool call", async () => {
    const log: string[] = [];
    const agent = await fx.make({ tools: registryWith(recordingTool("write", "parallel-safe", log, { delayMs: 1 })) });
    const cutCall = (n: number) => fauxAssistantMessage([fauxToolCall("write", { value: n })], { stopReason: "length" });
    fx.faux.setResponses([cutCall(1), cutCall(2), cutCall(3)]);
    const result = await agent.run("write");
    expect(log).toEqual([]);
    expect(result.stopReason).toBe("OUTPUT_TRUNCATED");
    expect(result.text).toMatch(/^\(This answer was cut off/);
    // Every call is answered, so the next turn's request is valid for the tool-calling protocol.
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant", "toolResult"]);
  });

  it("stops continuing when the step budget is used up and says the answer was cut off", async () => {
    const agent = await fx.make({ budget: { maxSteps: 2 } });
    fx.faux.setResponses([cut("Part one, "), cut("part two"), fauxAssistantMessage("never asked")]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("MAX_ITERATIONS_EXCEEDED");
    expect(result.steps).toBe(2);
    expect(result.text).toMatch(/^Part one, part two\n\n\(This answer was cut off: .*no step was left/);
    expect(fx.faux.getPendingResponseCount()).toBe(1);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("delivers the cut-off part with a note when the time budget ends before the continuation", async () => {
    let clock = 0;
    const agent = await fx.make({ now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    fx.faux.setResponses([
      () => {
        clock = 61_000;
        return cut("Slow start");
      },
      fauxAssistantMessage("never asked"),
    ]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toMatch(/^Slow start\n\n\(This answer was cut off: .*no time was left/);
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("keeps the cut-off part in the transcript when the person stops the run before the continuation", async () => {
    const controller = new AbortController();
    const agent = await fx.make();
    fx.faux.setResponses([cut("Started to say"), fauxAssistantMessage("never asked")]);
    const result = await agent.run("go", { signal: controller.signal, callbacks: { onStep: () => controller.abort() } });
    expect(result.stopReason).toBe("ABORT");
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(result.newMessages[1])).toContain("Started to say");
  });

  it("keeps the cut-off part when continuing it fails", async () => {
    const agent = await fx.make({ budget: { maxModelAttempts: 1 } });
    fx.faux.setResponses([cut("Half an answer"), fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 bad request" })]);
    const result = await agent.run("go");
    expect(result.stopReason).toBe("API_ERROR");
    expect(result.text).toMatch(/^Half an answer\n\n\(This answer was cut off: .*continue failed/);
    expect(result.error).toBeDefined();
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("joining a cut-off draft and its continuation", () => {
  it("keeps the continuation's reasoning with its tool calls (providers pair them) after the joined text", () => {
    const draft = fauxAssistantMessage([fauxThinking("plan the answer"), fauxText("Writing the file ")], { stopReason: "length" });
    const next = fauxAssistantMessage(
      [fauxThinking("now call the tool"), fauxText("now."), fauxToolCall("write_file", { path: "a.txt" }, { id: "call_9" })],
      { stopReason: "toolUse" },
    );
    const joined = joinContinuation(draft, next);
    expect(joined.content.map((block) => block.type)).toEqual(["thinking", "text", "thinking", "toolCall"]);
    expect(joined.content[0]).toMatchObject({ thinking: "plan the answer" });
    expect(joined.content[1]).toMatchObject({ text: "Writing the file now." });
    expect(joined.content[2]).toMatchObject({ thinking: "now call the tool" });
    expect(joined.content[3]).toMatchObject({ id: "call_9", name: "write_file" });
    expect(joined.stopReason).toBe("toolUse");
  });
});
