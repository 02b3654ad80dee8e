import type { RecordedRequest, ScriptedReply, ScriptStep } from "../fakes/llm-server.js";

/** The ways a provider call fails in the storm: rate limits with and without a wait, server errors, cut streams, junk. */
export const PROVIDER_FAULTS: readonly ScriptedReply[] = [
  { kind: "error", status: 429, headers: { "retry-after": "1" } },
  { kind: "error", status: 429 },
  { kind: "error", status: 500 },
  { kind: "error", status: 502, body: "<html><body>Bad gateway</body></html>" },
  { kind: "break", afterText: "I was about to sa" },
  { kind: "garbage" },
];

export interface FaultyProvider {
  step: ScriptStep;
  /** How many calls got each fault (by index in PROVIDER_FAULTS) and how many were answered. */
  tally: { faults: number[]; answered: number };
}

/** The last user turn's text as the model sees it. */
export function lastUserText(request: RecordedRequest): string {
  const users = request.messages.filter((m): m is { role: string; content: unknown } => (m as { role?: unknown }).role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

/**
 * A scripted model that fails `faultRate` of its calls (drawn with `random`) with the next fault of PROVIDER_FAULTS,
 * and otherwise answers `answerFor(the last user text)`, sometimes after a `think` tool call first, so multi-step runs
 * meet faults too.
 */
export function faultyProvider(
  random: () => number,
  faultRate: number,
  answerFor: (userText: string) => string,
  /** Conversations whose every call fails, so the error path is sure to be taken. */
  alwaysFails: (userText: string) => boolean = () => false,
): FaultyProvider {
  const tally = { faults: PROVIDER_FAULTS.map(() => 0), answered: 0 };
  let faults = 0;
  const step = (request: RecordedRequest): ScriptedReply => {
    if (random() < faultRate || alwaysFails(lastUserText(request))) {
      // The seed picks which calls fail; the kinds take turns, so every kind is met once six calls have failed.
      const index = faults % PROVIDER_FAULTS.length;
      faults += 1;
      tally.faults[index] = (tally.faults[index] ?? 0) + 1;
      return PROVIDER_FAULTS[index] ?? { kind: "error", status: 500 };
    }
    const last = request.messages.at(-1) as { role?: unknown } | undefined;
    if (last?.role === "user" && random() < 0.25) return { kind: "tools", calls: [{ name: "think", arguments: { thought: "plan the answer" } }] };
    tally.answered += 1;
    return { kind: "text", text: answerFor(lastUserText(request)), chunks: 3 };
  };
  return { step, tally };
}
