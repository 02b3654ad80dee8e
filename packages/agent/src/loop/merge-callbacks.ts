import type { Logger } from "../observability/logger.js";
import { invokeSafely, invokeSafelySync, type AgentCallbacks } from "./callbacks.js";

/** Configured observers first, then the run's own; each is isolated so one failing does not silence the other. */
export function mergeCallbacks(a: AgentCallbacks | undefined, b: AgentCallbacks | undefined, logger: Logger): AgentCallbacks {
  if (!a) return b ?? {};
  if (!b) return a;
  const sync = (name: string, fns: Array<(() => void) | undefined>): void => {
    for (const fn of fns) invokeSafelySync(logger, name, fn);
  };
  return {
    onTextDelta: (delta, info) => sync("onTextDelta", [a.onTextDelta && (() => a.onTextDelta?.(delta, info)), b.onTextDelta && (() => b.onTextDelta?.(delta, info))]),
    onStatus: (event) => sync("onStatus", [a.onStatus && (() => a.onStatus?.(event)), b.onStatus && (() => b.onStatus?.(event))]),
    onToolStart: async (event) =>
      (await invokeSafely(logger, "onToolStart", a.onToolStart && (() => a.onToolStart?.(event)))) ??
      (await invokeSafely(logger, "onToolStart", b.onToolStart && (() => b.onToolStart?.(event)))),
    onToolEnd: async (event) => {
      await invokeSafely(logger, "onToolEnd", a.onToolEnd && (() => a.onToolEnd?.(event)));
      await invokeSafely(logger, "onToolEnd", b.onToolEnd && (() => b.onToolEnd?.(event)));
    },
    onStep: async (event) => {
      await invokeSafely(logger, "onStep", a.onStep && (() => a.onStep?.(event)));
      await invokeSafely(logger, "onStep", b.onStep && (() => b.onStep?.(event)));
    },
  };
}
