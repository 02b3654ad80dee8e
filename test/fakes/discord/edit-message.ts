import { formError, type RestAnswer } from "./create-message.js";
import type { RestRecords } from "./fake-rest.js";
import type { FakeWorld } from "./fake-world.js";
import type { Json } from "./payloads.js";

const MAX_CONTENT = 2000;

/**
 * `PATCH /channels/{id}/messages/{id}` as Discord answers a bot: only its own messages, in the channel they are in;
 * fields left out of the body stay as they were, `components: []` removes the buttons; the same text again is fine.
 */
export function editBotMessage(channelId: string, messageId: string, rawBody: string, world: FakeWorld, records: RestRecords): RestAnswer {
  if (!world.channels.has(channelId)) return { status: 404, body: { message: "Unknown Channel", code: 10003 } };
  const message = world.messages.get(messageId);
  if (!message || message.channel_id !== channelId) return { status: 404, body: { message: "Unknown Message", code: 10008 } };
  if ((message.author as Json).id !== world.bot.id) return { status: 403, body: { message: "Cannot edit a message authored by another user", code: 50005 } };
  let body: Json;
  try {
    body = JSON.parse(rawBody) as Json;
  } catch {
    return { status: 400, body: { message: "400: Bad Request", code: 0 } };
  }
  const content = typeof body.content === "string" ? body.content : (message.content as string);
  if (content.length > MAX_CONTENT) return { status: 400, body: formError("content", "BASE_TYPE_MAX_LENGTH", `Must be ${MAX_CONTENT} or fewer in length.`) };
  if (content.trim().length === 0) return { status: 400, body: { message: "Cannot send an empty message", code: 50006 } };
  const components = Array.isArray(body.components) ? (body.components as Json[]) : ((message.components as Json[] | undefined) ?? []);
  const updated = world.updateMessage(messageId, { content, components });
  const sent = records.sent.find((m) => m.id === messageId);
  if (sent) {
    sent.content = content;
    sent.components = components;
    sent.edits.push({ content, components, body });
  }
  return { status: 200, body: updated };
}
