import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, fauxToolCall, type AssistantMessage, type Context, type FauxResponseFactory } from "@mariozechner/pi-ai";
import { fauxAgentFixture, recordingTool, registryWith, type FauxAgentFixture } from "../testing/faux.js";

let fx: FauxAgentFixture;
beforeEach(async () => {
  fx = await fauxAgentFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

/** A model call that never answers on its own: it ends only when its signal fires, as a stalled provider would. */
function hangs(seen?: { signal?: AbortSignal }): FauxResponseFactory {
  return (_context, options) => {
    if (seen) seen.signal = options?.signal;
    return new Promise<AssistantMessage>((resolve) => {
      const aborted = (): void => resolve(fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "Request was aborted" }));
      if (options?.signal?.aborted) return aborted();
      options?.signal?.addEventListener("abort", aborted, { once: true });
    });
  };
}

const lookup = () => registryWith(recordingTool("lookup", "parallel-safe", [], { delayMs: 1 }));

describe("grace summary at the wall-time budget", () => {
  it("asks the model for a summary, with the tools still declared, once the time is used up between steps", async () => {
    let clock = 0;
    const agent = await fx.make({ tools: lookup(), now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    let graceContext: Context | undefined;
    // The first reply's tool runs, then the clock passes the budget before the next model call.
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      (context) => {
        graceContext = context;
        return fauxAssistantMessage("I looked up 1; 2 and 3 are left.");
      },
    ]);
    const result = await agent.run("go", { callbacks: { onStep: () => { clock = 61_000; } } });
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toBe("I looked up 1; 2 and 3 are left.");
    expect(result.steps).toBe(1);
    expect(graceContext?.tools?.map((t) => t.name)).toEqual(["lookup"]);
    expect(JSON.stringify(graceContext?.messages.at(-1))).toMatch(/all the time allowed.*cannot call tools any more/);
    // The request to summarise is not kept; the summary is, after the tool result, so the transcript stays valid.
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("summarises after the deadline stopped a model call that was under way", async () => {
    const agent = await fx.make({ tools: lookup(), budget: { maxWallTimeMs: 300 } });
    const first: { signal?: AbortSignal } = {};
    fx.faux.setResponses([hangs(first), fauxAssistantMessage("I had only started; nothing is done yet.")]);
    const result = await agent.run("go");
    expect(first.signal?.aborted).toBe(true);
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toBe("I had only started; nothing is done yet.");
    expect(result.newMessages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("keeps only the text of a summary that calls a tool anyway", async () => {
    let clock = 0;
    const agent = await fx.make({ tools: lookup(), now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([{ type: "text", text: "Looked up 1." }, fauxToolCall("lookup", { value: 2 })], { stopReason: "toolUse" }),
    ]);
    const result = await agent.run("go", { callbacks: { onStep: () => { clock = 61_000; } } });
    expect(result.text).toBe("Looked up 1.");
    const last = result.newMessages.at(-1);
    expect(last?.role === "assistant" && last.content.every((block) => block.type === "text")).toBe(true);
  });

  it("says so when the summary itself is cut off by the output token limit", async () => {
    let clock = 0;
    const agent = await fx.make({ tools: lookup(), now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage("I looked up 1 and then", { stopReason: "length" }),
    ]);
    const result = await agent.run("go", { callbacks: { onStep: () => { clock = 61_000; } } });
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toMatch(/^I looked up 1 and then\n\n\(This answer was cut off: .*no time was left/);
    // The transcript keeps what the model wrote, without the note meant for the person.
    expect(JSON.stringify(result.newMessages.at(-1))).not.toContain("This answer was cut off");
  });

  it("falls back to the static message when the summary call hangs past its own deadline", async () => {
    // A 400 ms budget gives the summary min(30 s, 40 ms).
    const agent = await fx.make({ tools: lookup(), budget: { maxWallTimeMs: 400 } });
    const grace: { signal?: AbortSignal } = {};
    fx.faux.setResponses([hangs(), hangs(grace)]);
    const result = await agent.run("go");
    expect(grace.signal?.aborted).toBe(true);
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toBe(
      "I ran out of time for this request (limit 400 ms) before finishing and could not write a summary " +
        "(it took longer than 40 ms). Ask me to continue if you want me to keep going.",
    );
    expect(result.newMessages.map((m) => m.role)).toEqual(["user"]);
  });

  it("falls back to the static message when the summary call fails", async () => {
    let clock = 0;
    const agent = await fx.make({ tools: lookup(), now: () => clock, budget: { maxWallTimeMs: 120_000, maxModelAttempts: 1 } });
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "400 bad request" }),
    ]);
    const result = await agent.run("go", { callbacks: { onStep: () => { clock = 121_000; } } });
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toMatch(/^I ran out of time for this request \(limit 2 min\) before finishing and could not write a summary \(.*400 bad request/);
  });

  it("lets the person's stop end the summary call", async () => {
    let clock = 0;
    const controller = new AbortController();
    const agent = await fx.make({ tools: lookup(), now: () => clock, budget: { maxWallTimeMs: 60_000 } });
    const grace: { signal?: AbortSignal } = {};
    const hangingGrace = hangs(grace);
    fx.faux.setResponses([
      fauxAssistantMessage([fauxToolCall("lookup", { value: 1 })], { stopReason: "toolUse" }),
      (context, options, state, model) => {
        const answer = hangingGrace(context, options, state, model);
        controller.abort();
        return answer;
      },
    ]);
    const result = await agent.run("go", { signal: controller.signal, callbacks: { onStep: () => { clock = 61_000; } } });
    expect(grace.signal?.aborted).toBe(true);
    expect(result.stopReason).toBe("WALL_TIME_EXCEEDED");
    expect(result.text).toMatch(/could not write a summary \(the run was stopped\)/);
  });

  it("ends with ABORT, not a summary, when the person stopped the run before the time ran out", async () => {
    const controller = new AbortController();
    const agent = await fx.make({ tools: lookup(), budget: { maxWallTimeMs: 60_000 } });
    fx.faux.setResponses([
      (context, options, state, model) => {
        const answer = hangs()(context, options, state, model);
        controller.abort();
        return answer;
      },
      fauxAssistantMessage("never asked"),
    ]);
    const result = await agent.run("go", { signal: controller.signal });
    expect(result.stopReason).toBe("ABORT");
    expect(fx.faux.getPendingResponseCount()).toBe(1);
  });
});
