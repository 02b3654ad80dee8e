import { HOOK_EVENT_FAMILIES, isHookEventType } from "./events.js";

/** How a hook's event pattern matched an event: exact subscriptions run before wildcard ones. */
export type EventMatch = "exact" | "wildcard" | "none";

/** `pattern` is an exact event name, `*`, or `<family>:*` (e.g. `agent:*`, `command:*`). */
export function matchEvent(pattern: string, eventType: string): EventMatch {
  if (pattern === eventType) return "exact";
  if (pattern === "*") return "wildcard";
  if (pattern.endsWith(":*") && eventType.startsWith(pattern.slice(0, -1))) return "wildcard";
  return "none";
}

/** The strongest match among a hook's patterns. */
export function matchEvents(patterns: readonly string[], eventType: string): EventMatch {
  let best: EventMatch = "none";
  for (const pattern of patterns) {
    const match = matchEvent(pattern, eventType);
    if (match === "exact") return match;
    if (match === "wildcard") best = match;
  }
  return best;
}

export function isWildcardPattern(pattern: string): boolean {
  return pattern.includes("*");
}

/** Why a manifest's event pattern cannot match anything, or undefined when it is valid. */
export function describeInvalidPattern(pattern: string): string | undefined {
  if (pattern === "*") return undefined;
  if (pattern.endsWith(":*")) {
    const family = pattern.slice(0, -2);
    if (HOOK_EVENT_FAMILIES.includes(family)) return undefined;
    return `unknown event family "${family}" (expected one of ${HOOK_EVENT_FAMILIES.join(", ")})`;
  }
  if (pattern.includes("*")) return `unsupported wildcard "${pattern}" (use "*" or "<family>:*", e.g. "agent:*")`;
  if (isHookEventType(pattern)) return undefined;
  return `unknown event "${pattern}"`;
}
