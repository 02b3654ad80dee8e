import type { Logger } from "../observability/logger.js";
import type { AnyToolDefinition, RunCaller, ToolResult } from "./types.js";

export type DeadlineOutcome =
  | { kind: "done"; result: ToolResult }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "aborted" }
  | { kind: "threw"; error: string };

const MAX_TIMER_MS = 2_147_483_647;

/**
 * Runs a handler under the run's abort signal and a per-call timeout. The handler gets a signal that fires on either;
 * a handler that ignores it is still cut loose so the loop moves on (its promise settles unobserved).
 */
export async function runWithDeadline(
  tool: AnyToolDefinition,
  args: Record<string, unknown>,
  options: { parentSignal: AbortSignal; timeoutMs: number; toolCallId: string; sessionId: string; logger: Logger; caller?: RunCaller },
): Promise<DeadlineOutcome> {
  if (options.parentSignal.aborted) return { kind: "aborted" };
  const controller = new AbortController();
  let settled = false;
  let timedOut = false;

  return await new Promise<DeadlineOutcome>((resolve) => {
    const finish = (outcome: DeadlineOutcome): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      options.parentSignal.removeEventListener("abort", onParentAbort);
      if (!controller.signal.aborted) controller.abort(new Error("tool call finished"));
      resolve(outcome);
    };
    const onParentAbort = (): void => {
      controller.abort(options.parentSignal.reason);
      finish({ kind: "aborted" });
    };
    const timer =
      Number.isFinite(options.timeoutMs) && options.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`timed out after ${options.timeoutMs} ms`));
            finish({ kind: "timeout", timeoutMs: options.timeoutMs });
          }, Math.min(options.timeoutMs, MAX_TIMER_MS))
        : undefined;
    options.parentSignal.addEventListener("abort", onParentAbort, { once: true });

    const context = {
      signal: controller.signal,
      toolCallId: options.toolCallId,
      sessionId: options.sessionId,
      logger: options.logger,
      caller: options.caller,
    };
    Promise.resolve()
      .then(() => tool.handler(args, context))
      .then(
        (result) =>
          finish(
            timedOut
              ? { kind: "timeout", timeoutMs: options.timeoutMs }
              : isToolResult(result)
                ? { kind: "done", result }
                : { kind: "threw", error: "the tool returned an invalid result (expected { content: string })" },
          ),
        (error: unknown) => finish({ kind: "threw", error: error instanceof Error ? error.message : String(error) }),
      );
  });
}

// Plugins (memory providers, embedders) supply handlers too: a malformed result must not crash the run.
function isToolResult(value: unknown): value is ToolResult {
  return typeof value === "object" && value !== null && typeof (value as { content?: unknown }).content === "string";
}
