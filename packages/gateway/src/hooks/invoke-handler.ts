import type { HookEvent } from "./events.js";
import { describeError, type HookHandler } from "./load-hook.js";

/** `thrown` is what the handler threw, kept for the operator's log (its stack); `error` is the one-line summary. */
export type HandlerOutcome = { ok: true; value: unknown } | { ok: false; failure: "threw" | "timeout"; error: string; thrown?: unknown };

/**
 * Runs one handler, sync or async, and turns a throw, a rejection or a missed deadline into a value. A handler that
 * never settles is left behind: JavaScript cannot stop it, only stop waiting for it.
 */
export async function invokeHookHandler(handler: HookHandler, event: HookEvent, timeoutMs: number): Promise<HandlerOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<HandlerOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, failure: "timeout", error: `did not finish within ${timeoutMs} ms` }), timeoutMs);
  });
  const run = (async (): Promise<HandlerOutcome> => {
    try {
      return { ok: true, value: await handler(isolatedCopy(event)) };
    } catch (error) {
      return { ok: false, failure: "threw", error: describeError(error), thrown: error };
    }
  })();
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Each handler gets its own copy so one hook cannot change what the next one, or the gateway, sees. */
function isolatedCopy(event: HookEvent): HookEvent {
  try {
    return structuredClone(event);
  } catch {
    // Something uncloneable slipped in (events should be plain JSON); a frozen original still keeps it read-only.
    return Object.freeze({ ...event });
  }
}

export type BlockDecision = { block: true; reason: string };

/** `{ block: true, reason }` with a non-empty reason; anything else a handler returns means "carry on". */
export function asBlockDecision(value: unknown): BlockDecision | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  if (!("block" in value) || value.block !== true) return undefined;
  if (!("reason" in value) || typeof value.reason !== "string" || value.reason.trim() === "") return undefined;
  return { block: true, reason: value.reason };
}

/** A result that tried to block but was malformed: worth a log line, since the author expected it to work. */
export function looksLikeBlockAttempt(value: unknown): boolean {
  return typeof value === "object" && value !== null && "block" in value && value.block === true && asBlockDecision(value) === undefined;
}
