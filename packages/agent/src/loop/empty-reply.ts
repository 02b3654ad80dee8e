import type { LoopOutcome } from "./loop-deps.js";

const EMPTY_REPLY_NUDGE = "[Your previous reply was empty. Answer the last user message now, or call a tool.]";

export type EmptyReplyDecision = { kind: "ask_again"; nudge: string | undefined } | { kind: "give_up"; stopReason: LoopOutcome["stopReason"]; text: string };

/**
 * An empty reply is asked again once, with a nudge; a model that keeps answering nothing would otherwise burn the
 * whole step budget. Replies with words or tool calls reset the count.
 */
export class EmptyReplyPolicy {
  private emptyInARow = 0;

  onEmpty(stepsLeft: boolean): EmptyReplyDecision {
    this.emptyInARow += 1;
    if (this.emptyInARow > 1) {
      return { kind: "give_up", stopReason: "API_ERROR", text: "The model returned an empty answer twice, so I have nothing to tell you. Please rephrase or try again." };
    }
    // With no step left the loop goes to the grace summary, which has its own prompt.
    return { kind: "ask_again", nudge: stepsLeft ? EMPTY_REPLY_NUDGE : undefined };
  }

  onReply(): void {
    this.emptyInARow = 0;
  }
}
