import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fauxAssistantMessage, registerFauxProvider, type FauxProviderRegistration } from "@mariozechner/pi-ai";
import { SUMMARY_MARKER } from "./compression-note.js";
import { summarize } from "./summarize.js";

let faux: FauxProviderRegistration;
beforeEach(() => {
  faux = registerFauxProvider({ models: [{ id: "summarizer", contextWindow: 32_000, maxTokens: 4_096 }] });
});
afterEach(() => {
  faux.unregister();
});

const request = { systemPrompt: "summarise", prompt: "<transcript>...</transcript>" };
const options = () => ({ signal: new AbortController().signal, maxTokens: 700, now: () => 1 });

describe("summarize", () => {
  it("returns the model's text and sends the prompt with the summary token limit", async () => {
    let seen: { system?: string; prompt?: unknown; maxTokens?: number } = {};
    faux.setResponses([
      (context, streamOptions) => {
        seen = { system: context.systemPrompt, prompt: context.messages[0]?.content, maxTokens: streamOptions?.maxTokens };
        return fauxAssistantMessage("## Goal\nShip it");
      },
    ]);
    const outcome = await summarize({ model: faux.getModel(), apiKey: "test" }, request, options());
    expect(outcome).toEqual({ ok: true, summary: "## Goal\nShip it", truncated: false });
    expect(seen).toEqual({ system: "summarise", prompt: request.prompt, maxTokens: 700 });
  });

  it("removes our marker when the model copies it", async () => {
    faux.setResponses([fauxAssistantMessage(`${SUMMARY_MARKER}\n## Goal\nx`)]);
    const outcome = await summarize({ model: faux.getModel() }, request, options());
    expect(outcome).toMatchObject({ ok: true, summary: "## Goal\nx" });
  });

  it("reports a provider error, an empty reply and an aborted reply as values", async () => {
    faux.setResponses([
      fauxAssistantMessage([], { stopReason: "error", errorMessage: "overloaded" }),
      fauxAssistantMessage("   "),
      fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "timed out" }),
    ]);
    const binding = { model: faux.getModel() };
    expect(await summarize(binding, request, options())).toEqual({ ok: false, reason: "error", detail: "overloaded" });
    expect(await summarize(binding, request, options())).toEqual({ ok: false, reason: "empty" });
    expect(await summarize(binding, request, options())).toMatchObject({ ok: false, reason: "aborted" });
  });

  it("flags a summary cut off by the token limit", async () => {
    faux.setResponses([fauxAssistantMessage("## Goal\npartial", { stopReason: "length" })]);
    expect(await summarize({ model: faux.getModel() }, request, options())).toMatchObject({ ok: true, truncated: true });
  });
});
