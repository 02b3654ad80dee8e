import type { AssistantMessage, Message, TextContent, ToolCall, ToolResultMessage } from "@mariozechner/pi-ai";

/** How often a reply cut off by the output token limit is continued before what there is gets delivered. */
export const MAX_CONTINUATIONS = 2;

const CONTINUE_PROMPT =
  "[Your previous reply was cut off by the output token limit. Continue exactly where it stopped: " +
  "do not repeat anything you already wrote and do not start over.]";

export const CUT_OFF_CALL_TEXT =
  "[Not run: your reply hit the output token limit while this call was being written, so its arguments may be " +
  "incomplete. Call the tool again; if the arguments are long, split the work into smaller calls.]";

/** Why a cut-off answer could not be continued to its end. */
export type CutOffCause = "length" | "steps" | "time" | "error";

const CUT_OFF_NOTES: Record<CutOffCause, string> = {
  length: "(This answer was cut off: it kept hitting the model's output limit. Say \"continue\" to get the rest.)",
  steps: "(This answer was cut off: it hit the model's output limit and no step was left to continue it. Say \"continue\" to get the rest.)",
  time: "(This answer was cut off: it hit the model's output limit and no time was left to continue it. Say \"continue\" to get the rest.)",
  error: "(This answer was cut off: it hit the model's output limit and asking the model to continue failed.",
};

/** The text a person gets for an answer that is still cut off, so it never passes as finished. */
export function withCutOffNote(text: string, cause: CutOffCause, detail?: string): string {
  const note = cause === "error" ? `${CUT_OFF_NOTES.error}${detail ? ` ${detail}` : ""})` : CUT_OFF_NOTES[cause];
  return text.length > 0 ? `${text}\n\n${note}` : note;
}

export function isCutOff(message: AssistantMessage): boolean {
  return message.stopReason === "length";
}

/** The text blocks as the model wrote them, untrimmed: a cut can fall inside a word or right after a space. */
function rawText(message: AssistantMessage): string {
  return message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/**
 * One assistant message out of a cut-off draft and its continuation: the draft's reasoning first (it opened the
 * answer), the texts joined as written, then the continuation's reasoning and tool calls. The continuation's
 * reasoning stays next to its calls because providers pair them: OpenAI Responses rejects a function_call item sent
 * without the reasoning item it came with, and Anthropic wants the thinking of a tool_use turn sent back unchanged.
 * Usage is the last call's, whose prompt held the whole draft, so context-size estimates stay right; cost is counted
 * per call elsewhere.
 */
export function joinContinuation(draft: AssistantMessage | undefined, next: AssistantMessage): AssistantMessage {
  if (!draft) return next;
  const text = rawText(draft) + rawText(next);
  const reasoningOf = (message: AssistantMessage) => message.content.filter((block) => block.type === "thinking");
  const calls = next.content.filter((block): block is ToolCall => block.type === "toolCall");
  const joinedText = text.length > 0 ? [{ type: "text" as const, text }] : [];
  return { ...next, content: [...reasoningOf(draft), ...joinedText, ...reasoningOf(next), ...calls] };
}

/** Sent after the draft (never stored): the draft as the model's own turn, then the request to go on. */
export function continuationTail(draft: AssistantMessage, now: number): Message[] {
  return [draft, { role: "user", content: CONTINUE_PROMPT, timestamp: now }];
}

/** Tool results for the calls of a cut-off reply: not run, and the model is told why (the transcript stays valid). */
export function cutOffCallResults(calls: readonly ToolCall[], now: number): ToolResultMessage[] {
  return calls.map((call) => ({
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: CUT_OFF_CALL_TEXT }],
    isError: true,
    timestamp: now,
  }));
}

/** Counts length stops in a row; any reply that ends on its own resets it. */
export class ContinuationCounter {
  private cutOffsInARow = 0;

  /** True when one more continuation is allowed; counts it. */
  tryContinue(): boolean {
    if (this.cutOffsInARow >= MAX_CONTINUATIONS) return false;
    this.cutOffsInARow += 1;
    return true;
  }

  get used(): number {
    return this.cutOffsInARow;
  }

  reset(): void {
    this.cutOffsInARow = 0;
  }
}
