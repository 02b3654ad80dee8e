/**
 * Slack delivers message text with its own markup: `<@U123>` mentions, `<#C1|general>` channels, `<!here>`
 * broadcasts, `<https://…|label>` links and `&amp;`/`&lt;`/`&gt;` escapes. The agent gets readable plain text instead.
 */

export interface DecodedText {
  text: string;
  /** The text mentions the bot user. */
  mentionedBot: boolean;
}

const TOKEN = /<([^<>]+)>/g;

export function decodeSlackText(raw: string, bot: { userId: string; name?: string }): DecodedText {
  const mention = new RegExp(`<@${escapeRegExp(bot.userId)}(?:\\|[^>]*)?>`);
  const mentionedBot = mention.test(raw);
  // "@Hermes /status" should reach the gateway as "/status" so commands work after a mention.
  const leading = new RegExp(`^\\s*<@${escapeRegExp(bot.userId)}(?:\\|[^>]*)?>[\\s,:]*`);
  const body = raw.replace(leading, "");
  const text = body.replace(TOKEN, (_whole, inner: string) => decodeToken(inner, bot));
  return { text: unescapeEntities(text).trim(), mentionedBot };
}

function decodeToken(inner: string, bot: { userId: string; name?: string }): string {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  if (target.startsWith("@")) {
    const id = target.slice(1);
    if (id === bot.userId && bot.name) return `@${bot.name}`;
    return `@${label ?? id}`;
  }
  if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
  if (target.startsWith("!")) return decodeSpecial(target.slice(1), label);
  if (target.startsWith("mailto:")) return label ?? target.slice("mailto:".length);
  if (label === undefined || label === target || `http://${label}` === target || `https://${label}` === target) return target;
  return `${label} (${target})`;
}

function decodeSpecial(command: string, label: string | undefined): string {
  if (command === "here" || command === "channel" || command === "everyone") return `@${command}`;
  if (command.startsWith("subteam^")) return label ?? `@${command.slice("subteam^".length)}`;
  return label ?? "";
}

function unescapeEntities(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
