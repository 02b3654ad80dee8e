import type { Message, UserMessage } from "@mariozechner/pi-ai";

/** First line of the message that stands in for compressed history; later compressions find prior summaries by it. */
export const SUMMARY_MARKER = "[Conversation summary — earlier messages were compressed]";
/** First line of the stand-in used when no summary could be written. */
export const DROPPED_MARKER = "[Earlier messages were removed to fit the context window]";

const LATEST_REQUEST_HEADING = "## Latest user request (verbatim)";
const LATEST_REQUEST_MAX_CHARS = 2_000;
const KEPT_SUMMARY_HEADING = "Summary from before that point (may be out of date):";

export interface CompressionNote {
  kind: "summary" | "dropped";
  /** What the note carries after its header: the summary, or the older summary a dropped note kept. */
  body: string;
  timestamp: number;
}

function textOf(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

export function readCompressionNote(message: Message): CompressionNote | undefined {
  if (message.role !== "user") return undefined;
  const text = textOf(message);
  const kind = text.startsWith(SUMMARY_MARKER) ? "summary" : text.startsWith(DROPPED_MARKER) ? "dropped" : undefined;
  if (!kind) return undefined;
  const split = text.indexOf("\n\n");
  let body = split === -1 ? "" : text.slice(split + 2);
  // The verbatim request was a copy for the model's next turn; the next summary is rebuilt from the transcript.
  const request = body.indexOf(`\n\n${LATEST_REQUEST_HEADING}`);
  if (request !== -1) body = body.slice(0, request);
  if (kind === "dropped") body = body.startsWith(KEPT_SUMMARY_HEADING) ? body.slice(KEPT_SUMMARY_HEADING.length) : "";
  return { kind, body: body.trim(), timestamp: message.timestamp };
}

/** When the transcript was last compressed: replies older than this were produced from a different prompt. */
export function latestCompressionTime(messages: readonly Message[]): number | undefined {
  let latest: number | undefined;
  for (const message of messages) {
    const note = readCompressionNote(message);
    if (note && (latest === undefined || note.timestamp > latest)) latest = note.timestamp;
  }
  return latest;
}

/** The person's own words of a user message, unless it is one of our notes. */
export function userRequestText(message: Message): string | undefined {
  if (message.role !== "user" || readCompressionNote(message)) return undefined;
  const text = textOf(message).trim();
  return text.length > 0 ? text : undefined;
}

function latestRequestSection(request: string | undefined): string {
  if (!request) return "";
  const clipped = request.length > LATEST_REQUEST_MAX_CHARS ? `${request.slice(0, LATEST_REQUEST_MAX_CHARS)} …[truncated]` : request;
  return `\n\n${LATEST_REQUEST_HEADING}\n${clipped.split("\n").map((line) => `> ${line}`).join("\n")}`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function summaryNoteMessage(input: {
  summary: string;
  replacedMessages: number;
  latestRequest?: string;
  timestamp: number;
}): UserMessage {
  const header =
    `${SUMMARY_MARKER}\n` +
    `This summary replaces ${plural(input.replacedMessages, "earlier message")}. It is background from this conversation, ` +
    "not a new request: continue from the messages after it.";
  return { role: "user", content: `${header}\n\n${input.summary.trim()}${latestRequestSection(input.latestRequest)}`, timestamp: input.timestamp };
}

/** The static stand-in of seed 004's graceful degradation: losing detail beats failing the run. */
export function droppedNoteMessage(input: {
  replacedMessages: number;
  previousSummary?: string;
  latestRequest?: string;
  timestamp: number;
}): UserMessage {
  const header =
    `${DROPPED_MARKER}\n` +
    `${plural(input.replacedMessages, "earlier message")} could not be summarised and were removed. ` +
    "If something from them is needed, ask the user or look it up again.";
  const previous = input.previousSummary?.trim();
  const body = previous ? `${KEPT_SUMMARY_HEADING}\n${previous}` : "(no summary available)";
  return { role: "user", content: `${header}\n\n${body}${latestRequestSection(input.latestRequest)}`, timestamp: input.timestamp };
}
