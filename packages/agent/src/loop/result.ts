import type { AssistantMessage, Message } from "@mariozechner/pi-ai";
import type { ClassifiedError } from "../errors/classify.js";
import type { UsageTotals } from "../observability/cost.js";

/** Why a run ended. "completed" is a normal final answer; the others are the error codes of seed 000 §11.1. */
export type RunStopReason =
  | "completed"
  | "MAX_ITERATIONS_EXCEEDED"
  | "WALL_TIME_EXCEEDED"
  /** The answer kept hitting the model's output token limit after the continuations allowed; `text` says so. */
  | "OUTPUT_TRUNCATED"
  | "CONTEXT_OVERFLOW"
  | "API_ERROR"
  | "ABORT";

export interface HermesAgentResult {
  /** What to show the person: the final answer, a budget summary, or a readable error. */
  text: string;
  stopReason: RunStopReason;
  /** Messages this run added (the user input first), valid to append to the stored transcript. */
  newMessages: Message[];
  /** The whole transcript after the run; differs from history + newMessages only when `compacted` is true. */
  history: Message[];
  compacted: boolean;
  steps: number;
  usage: UsageTotals;
  /** Provider failure behind API_ERROR / CONTEXT_OVERFLOW. */
  error?: ClassifiedError;
  /** The model that produced the final answer (differs from the configured one after a fallback). */
  model: { provider: string; id: string };
  /** The OpenTelemetry trace this run's spans belong to, when tracing is set up (for logs and support). */
  traceId?: string;
}

export function assistantText(message: AssistantMessage): string {
  return message.content
    .filter((block): block is { type: "text"; text: string } => block.type === "text")
    .map((block) => block.text)
    .join("")
    .trim();
}
