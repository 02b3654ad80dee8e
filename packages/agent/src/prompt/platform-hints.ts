/** Formatting advice for each chat platform the gateway delivers to, placed in the prompt's platform layer. */
export const PLATFORM_HINTS: Record<"telegram" | "discord" | "slack" | "console", string> = {
  telegram:
    "Replies go to Telegram. Keep them concise and chat-sized. Your Markdown is converted to Telegram's formatting " +
    "(bold, italic, strikethrough, code, code blocks, links, quotes, lists); headings become bold lines and tables " +
    "monospace blocks, so prefer short lists to wide tables. One message holds at most 4096 characters.",
  discord:
    "Replies go to Discord. One message holds at most 2000 characters, so keep answers short or expect them to be split. " +
    "Markdown renders (bold, italic, lists, headings, code blocks with a language tag); tables do not.",
  slack:
    "Replies go to Slack. Write standard Markdown: it is converted to Slack's mrkdwn (bold, italic, strikethrough, " +
    "code, code blocks, links, quotes, lists; headings become bold lines and tables monospace blocks). Do not write " +
    "mrkdwn yourself: *single asterisks* are italic and <url|text> shows as text.",
  console:
    "Replies are shown in a terminal as plain text. Do not use Markdown; use short lines, blank lines between " +
    "paragraphs and simple dashes for lists.",
};

export type KnownChatPlatform = keyof typeof PLATFORM_HINTS;

export function isKnownChatPlatform(name: string): name is KnownChatPlatform {
  return Object.hasOwn(PLATFORM_HINTS, name);
}

/** The explicit hint when given, else the built-in advice for a known platform, else nothing. */
export function formattingHintFor(chatPlatform: string | undefined, hint: string | undefined): string | undefined {
  if (hint !== undefined && hint.trim() !== "") return hint.trim();
  if (chatPlatform === undefined) return undefined;
  const key = chatPlatform.trim().toLowerCase();
  return isKnownChatPlatform(key) ? PLATFORM_HINTS[key] : undefined;
}
