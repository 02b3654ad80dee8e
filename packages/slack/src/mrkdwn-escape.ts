const ZERO_WIDTH_SPACE = "\u200B";
const BROADCAST_WORD = /@(channel|here|everyone)\b/gi;

/** Escapes the three characters Slack treats as markup (`&`, `<`, `>`). */
export function escapeSlackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Breaks `@channel`, `@here` and `@everyone` so they never notify, even where Slack would link names. */
export function neutralizeBroadcasts(text: string): string {
  return text.replace(BROADCAST_WORD, `@${ZERO_WIDTH_SPACE}$1`);
}

/** Text sent without any formatting (the gateway's plain-text resend): still escaped and without broadcasts. */
export function plainSlackText(text: string): string {
  return neutralizeBroadcasts(escapeSlackText(text));
}
