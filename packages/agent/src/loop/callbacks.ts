import type { AssistantMessage, ToolCall, Usage } from "@mariozechner/pi-ai";
import type { Logger } from "../observability/logger.js";
import type { ToolResult } from "../tools/types.js";

export type ToolCallStatus = "ok" | "error" | "invalid" | "unknown_tool" | "blocked" | "timeout" | "aborted" | "repeated";

export interface ToolStartEvent {
  step: number;
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** Returned by `onToolStart` to stop a call before it runs (the gateway's `tool:before` hooks use it). */
export type ToolGate = { block: true; reason: string } | undefined | void;

export interface ToolEndEvent extends ToolStartEvent {
  result: ToolResult;
  status: ToolCallStatus;
  durationMs: number;
  /** The result was recorded by an earlier attempt of this run (before a crash) and the tool did not run again. */
  replayed?: boolean;
}

export interface StepEvent {
  step: number;
  text: string;
  toolCalls: Array<{ id: string; name: string }>;
  usage: Usage;
}

export interface StatusEvent {
  kind: "retry" | "fallback" | "compression" | "grace" | "history_repair" | "empty_response" | "continuation";
  message: string;
  details?: Record<string, unknown>;
}

/** Observers of a run. They are isolated: one that throws is logged and ignored, never breaking the loop. */
export interface AgentCallbacks {
  onTextDelta?: (delta: string, info: { step: number }) => void;
  onToolStart?: (event: ToolStartEvent) => ToolGate | Promise<ToolGate>;
  onToolEnd?: (event: ToolEndEvent) => void | Promise<void>;
  onStep?: (event: StepEvent) => void | Promise<void>;
  onStatus?: (event: StatusEvent) => void;
}

/** Calls an observer, turning a throw or rejection into a log line and `undefined`. */
export async function invokeSafely<T>(
  logger: Logger,
  name: string,
  fn: (() => T | Promise<T>) | undefined,
): Promise<T | undefined> {
  if (!fn) return undefined;
  try {
    return await fn();
  } catch (error) {
    logger.warn("callback failed; ignored", { callback: name, error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/** Synchronous variant for hot paths such as text deltas. */
export function invokeSafelySync(logger: Logger, name: string, fn: (() => void) | undefined): void {
  if (!fn) return;
  try {
    const returned: unknown = fn();
    if (returned instanceof Promise) {
      returned.catch((error: unknown) =>
        logger.warn("callback failed; ignored", { callback: name, error: error instanceof Error ? error.message : String(error) }),
      );
    }
  } catch (error) {
    logger.warn("callback failed; ignored", { callback: name, error: error instanceof Error ? error.message : String(error) });
  }
}

interface ObservedRun {
  logger: Logger;
  callbacks: AgentCallbacks;
}

export function notifyStatus(run: ObservedRun, event: StatusEvent): void {
  invokeSafelySync(run.logger, "onStatus", run.callbacks.onStatus && (() => run.callbacks.onStatus?.(event)));
}

/** `onStep` after a step's model response and its tool calls (if any) are done. */
export async function reportStep(run: ObservedRun, step: number, text: string, calls: readonly ToolCall[], message: AssistantMessage): Promise<void> {
  await invokeSafely(run.logger, "onStep", run.callbacks.onStep && (() =>
    run.callbacks.onStep?.({ step, text, toolCalls: calls.map((c) => ({ id: c.id, name: c.name })), usage: message.usage })));
}
