import { isRecord } from "./slack-events.js";

/**
 * Why Bolt could not read a request body, or undefined when it can. Bolt looks at `event.user`, `event.channel`,
 * `event.item`, `event.subteam` and `authorizations[0]` before any listener runs and throws a TypeError on a null or
 * a value of the wrong kind there, and at `user` of interactive payloads. The adapter handles Events API events only,
 * so a body without an `event` is not for it either. Neither improves when Slack sends it again, so such a body is
 * answered without Bolt: a failure would only make Slack retry it.
 */
export function unreadableBody(body: Record<string, unknown>): string | undefined {
  if (body.event === undefined) return "not an Events API event";
  const event = body.event;
  if (!isRecord(event)) return "event is not an object";
  for (const key of ["user", "channel"]) {
    const value = event[key];
    if (key in event && typeof value !== "string" && !isRecord(value)) return `event.${key} is neither text nor an object`;
  }
  for (const key of ["item", "subteam"]) {
    if (key in event && !isRecord(event[key])) return `event.${key} is not an object`;
  }
  const authorizations = body.authorizations;
  if (Array.isArray(authorizations) && authorizations.length > 0 && !isRecord(authorizations[0])) return "authorizations[0] is not an object";
  return undefined;
}
