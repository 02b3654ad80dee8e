import { SocketModeClient } from "@slack/socket-mode";
import { isRecord } from "./slack-events.js";

/** The envelope type an `events_api` envelope without an event object is passed on under. */
export const UNREADABLE_EVENTS_API = "events_api_unreadable";

/**
 * The Socket Mode client without one crash: for an `events_api` envelope it reads `payload.event.type` unchecked, in
 * an async message handler, so an envelope without an event object becomes an unhandled rejection, which ends the
 * process. Such an envelope is passed on under another type instead, and the receiver confirms and logs it.
 */
export class GuardedSocketModeClient extends SocketModeClient {
  protected override async onWebSocketMessage(data: string | ArrayBuffer, isBinary: boolean): Promise<void> {
    return super.onWebSocketMessage(isBinary ? data : guardEnvelope(data), isBinary);
  }
}

/** The message as it came, or, for an `events_api` envelope whose payload has no event object, one of another type. */
export function guardEnvelope(data: string | ArrayBuffer): string | ArrayBuffer {
  let envelope: unknown;
  try {
    envelope = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
  } catch {
    return data;
  }
  if (!isRecord(envelope) || envelope.type !== "events_api") return data;
  if (isRecord(envelope.payload) && isRecord(envelope.payload.event)) return data;
  return JSON.stringify({ ...envelope, type: UNREADABLE_EVENTS_API });
}
