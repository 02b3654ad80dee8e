/** Where a streamed reply goes: the chat of the message it answers, and that message. */
export interface StreamTarget {
  platform: string;
  chatId: string;
  threadId?: string;
  replyToMessageId?: string;
}

/**
 * The state of a reply being written, as the worker publishes it: `text` is the whole text of the current step so far
 * (a new step starts again from empty), `status` what the run does meanwhile (e.g. "Running terminal…").
 */
export interface StreamUpdate extends StreamTarget {
  inboundId: number;
  text: string;
  status?: string;
}

function optionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === "string";
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** The update `value` describes, or undefined when it is not one (it may come from any Redis client). */
export function parseStreamUpdate(value: unknown): StreamUpdate | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const field = (name: string): unknown => Reflect.get(value, name);
  const inboundId = field("inboundId");
  const platform = field("platform");
  const chatId = field("chatId");
  const threadId = field("threadId");
  const replyToMessageId = field("replyToMessageId");
  const text = field("text");
  const status = field("status");
  if (typeof inboundId !== "number" || !Number.isSafeInteger(inboundId) || inboundId < 1) return undefined;
  if (!nonEmptyString(platform) || !nonEmptyString(chatId) || typeof text !== "string") return undefined;
  if (!optionalString(threadId) || !optionalString(replyToMessageId) || !optionalString(status)) return undefined;
  const update: StreamUpdate = { inboundId, platform, chatId, text };
  if (threadId !== undefined) update.threadId = threadId;
  if (replyToMessageId !== undefined) update.replyToMessageId = replyToMessageId;
  if (status !== undefined && status.length > 0) update.status = status;
  return update;
}
