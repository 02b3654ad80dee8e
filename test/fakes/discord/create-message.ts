import type { FakeWorld } from "./fake-world.js";
import type { Json } from "./payloads.js";
import { pingsOf } from "./pings.js";
import type { RestRecords } from "./fake-rest.js";

/** An HTTP answer not yet written, so it can be held back (a late answer). */
export interface RestAnswer {
  status: number;
  body: Json;
}

const MAX_CONTENT = 2000;
/** Discord checks an enforced nonce against "the past few minutes". */
const NONCE_WINDOW_MS = 5 * 60_000;

/**
 * `POST /channels/{id}/messages` as Discord answers it: validation, `message_reference`, `allowed_mentions`, and
 * `enforce_nonce` — a repeated nonce in the same channel gets the message created first, not a second one.
 */
export function createBotMessage(channelId: string, rawBody: string, world: FakeWorld, records: RestRecords, now: () => number = Date.now): RestAnswer {
  if (!world.channels.has(channelId)) return { status: 404, body: { message: "Unknown Channel", code: 10003 } };
  let body: Json;
  try {
    body = JSON.parse(rawBody) as Json;
  } catch {
    return { status: 400, body: { message: "400: Bad Request", code: 0 } };
  }
  const content = typeof body.content === "string" ? body.content : "";
  if (content.length > MAX_CONTENT) {
    return { status: 400, body: formError("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`) };
  }
  if (content.trim().length === 0) return { status: 400, body: { message: "Cannot send an empty message", code: 50006 } };
  const reference = (body.message_reference ?? undefined) as Json | undefined;
  let replyTo = typeof reference?.message_id === "string" ? reference.message_id : undefined;
  if (replyTo !== undefined && !world.messages.has(replyTo)) {
    if (reference?.fail_if_not_exists !== false) return { status: 400, body: formError("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message") };
    replyTo = undefined;
  }
  const nonceKey = enforcedNonceKey(channelId, body);
  const earlier = nonceKey === undefined ? undefined : records.nonces.get(nonceKey);
  const existing = earlier && now() - earlier.at < NONCE_WINDOW_MS ? world.messages.get(earlier.messageId) : undefined;
  if (existing) {
    records.nonceReplays.push(existing.id as string);
    return { status: 200, body: existing };
  }
  const pings = pingsOf(content, body.allowed_mentions, replyTo !== undefined);
  const components = Array.isArray(body.components) ? (body.components as Json[]) : [];
  const message = world.createMessage(channelId, world.bot, content, { ...(replyTo ? { replyTo } : {}), mentionIds: pings.users, components });
  if (nonceKey !== undefined) records.nonces.set(nonceKey, { messageId: message.id as string, at: now() });
  records.sent.push({ id: message.id as string, channelId, content, ...(replyTo ? { replyTo } : {}), body, pings, components, edits: [] });
  return { status: 200, body: message };
}

export function formError(field: string, code: string, message: string): Json {
  return { message: "Invalid Form Body", code: 50035, errors: { [field]: { _errors: [{ code, message }] } } };
}

function enforcedNonceKey(channelId: string, body: Json): string | undefined {
  if (body.enforce_nonce !== true) return undefined;
  return typeof body.nonce === "string" || typeof body.nonce === "number" ? `${channelId}:${body.nonce}` : undefined;
}
