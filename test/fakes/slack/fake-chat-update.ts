import type { PostedMessage } from "./fake-slack.js";

/** One chat.update the fake accepted, in order (the message's edit history). */
export interface MessageEdit {
  channel: string;
  ts: string;
  text: string;
  /** The blocks the update gave (an empty list removes the message's blocks); absent when it named none. */
  blocks?: unknown[];
}

type Json = Record<string, unknown>;

/** `blocks` as the Web API client sends it: a JSON array in a form field, or an array in a JSON body. */
export function readBlocks(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value !== "string" || value === "") return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Slack's chat.update on the fake's posted messages: the message keeps its current text and blocks (blocks only
 * change when the update names them, as on Slack), and every accepted update is added to `edits`. Answers the body
 * of Slack's reply: `{ok: true, channel, ts, text}` or `{ok: false, error}`.
 */
export function updatePostedMessage(posted: PostedMessage[], edits: MessageEdit[], params: Json): Json {
  const channel = typeof params.channel === "string" ? params.channel : "";
  const ts = typeof params.ts === "string" ? params.ts : "";
  const text = typeof params.text === "string" ? params.text : "";
  const blocks = readBlocks(params.blocks);
  if (!channel) return { ok: false, error: "channel_not_found" };
  const message = posted.find((candidate) => candidate.channel === channel && candidate.ts === ts);
  if (!message) return { ok: false, error: "message_not_found" };
  if (!text && (blocks === undefined || blocks.length === 0)) return { ok: false, error: "no_text" };
  if (text.length > 40_000) return { ok: false, error: "msg_too_long" };
  message.text = text;
  if (blocks !== undefined) message.blocks = blocks;
  const edit: MessageEdit = { channel, ts, text };
  if (blocks !== undefined) edit.blocks = blocks;
  edits.push(edit);
  return { ok: true, channel, ts, text };
}
