import type { AgentCallbacks } from "@hermes/agent";
import type { HookPort } from "./ports.js";

/** Bridges the agent's observers to lifecycle hooks; `tool:before` hooks may block a call. */
export function hookCallbacks(hooks: HookPort, base: Record<string, unknown> & { timestamp: number }, now: () => number): AgentCallbacks {
  return {
    onStep: async (event) => {
      await hooks.emit({ ...base, timestamp: now(), type: "agent:step", step: event.step, toolCalls: event.toolCalls.map((c) => c.name), text: event.text });
    },
    onToolStart: async (event) => {
      const outcome = await hooks.emit({ ...base, timestamp: now(), type: "tool:before", step: event.step, toolName: event.toolName, toolCallId: event.toolCallId, arguments: event.arguments });
      return outcome.blocked ? { block: true, reason: outcome.reason } : undefined;
    },
    onToolEnd: async (event) => {
      await hooks.emit({
        ...base,
        timestamp: now(),
        type: "tool:after",
        step: event.step,
        toolName: event.toolName,
        toolCallId: event.toolCallId,
        status: event.status,
        isError: event.result.isError === true,
        durationMs: event.durationMs,
        result: event.result.content.slice(0, 2_000),
        // Replayed from a checkpoint after a crash: the tool did not run again (and tool:before did not fire).
        ...(event.replayed ? { replayed: true } : {}),
      });
    },
  };
}
