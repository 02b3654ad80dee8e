import type { AgentCallbacks, ToolGate, ToolStartEvent } from "@hermes/agent";

export interface RunCallbackParts {
  /** The lifecycle hooks' observers (`tool:before` hooks may block a call). */
  hooks: AgentCallbacks;
  /** Asks the person before an approval tool runs (HERMES_APPROVAL); it blocks on any failure of its own. */
  approval?: (event: ToolStartEvent) => Promise<ToolGate>;
  /** Streams the reply as it is written (HERMES_STREAMING=edit); it only observes. */
  stream?: Pick<AgentCallbacks, "onTextDelta" | "onToolStart" | "onStep">;
}

/**
 * One run's observers: a call runs only if the hooks and then the person let it, and the streamed status names only
 * calls that passed both. The agent isolates each observer, so a failing stream never reaches the run.
 */
export function runCallbacks(parts: RunCallbackParts): AgentCallbacks {
  const { hooks, approval, stream } = parts;
  if (!approval && !stream) return hooks;
  return {
    ...hooks,
    onTextDelta: (delta, info) => {
      hooks.onTextDelta?.(delta, info);
      stream?.onTextDelta?.(delta, info);
    },
    onToolStart: async (event) => {
      const hooked = await settled(() => hooks.onToolStart?.(event));
      if (hooked.ok && hooked.value) return hooked.value;
      // Asked even when the hooks threw: the agent lets a call through a failed observer, never one unapproved.
      const asked = await approval?.(event);
      if (asked) return asked;
      if (!hooked.ok) throw hooked.error;
      await stream?.onToolStart?.(event);
      return undefined;
    },
    onStep: async (event) => {
      await hooks.onStep?.(event);
      await stream?.onStep?.(event);
    },
  };
}

async function settled<T>(call: () => T | Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}
