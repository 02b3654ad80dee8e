import { redactSecrets } from "@hermes/agent";

const MAX_REASON_LENGTH = 120;

/** A one-line, credential-free account of why a delivery failed, fit to show in the chat. */
export function shortFailureReason(error: string, retryable: boolean): string {
  // Connection errors tend to quote request URLs (Telegram's carry the bot token); the user needs none of it.
  if (retryable) return "the chat service could not be reached";
  const detail = redactSecrets(error).replace(/\s+/g, " ").trim();
  if (detail === "") return "the chat service rejected it";
  const clipped = detail.length > MAX_REASON_LENGTH ? detail.slice(0, MAX_REASON_LENGTH - 1).trimEnd() + "…" : detail;
  return `the chat service rejected it: ${clipped}`;
}

/** The message sent in place of a reply that could not be delivered. */
export function failureNoticeText(reason: string, partlyDelivered: boolean): string {
  const what = partlyDelivered ? "the rest of my reply" : "my reply";
  return `Sorry, I couldn't deliver ${what} (${reason}). Please try again.`;
}
