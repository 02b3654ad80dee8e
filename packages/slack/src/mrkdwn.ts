/**
 * The agent writes Markdown; Slack renders its own "mrkdwn". This converts one to the other and makes sure nothing the
 * model writes can act as a Slack control sequence: `&`, `<` and `>` are escaped everywhere (so `<!channel>`,
 * `<!here>` and `<@U123>` show as text instead of notifying anyone) and bare `@channel`/`@here`/`@everyone` get a
 * zero-width space so they can never become broadcasts.
 */

const ZERO_WIDTH_SPACE = "\u200B";
const BROADCAST_WORD = /@(channel|here|everyone)\b/gi;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

const INLINE = new RegExp(
  [
    /(`+)(.+?)(?<!`)\1(?!`)/.source, // 1, 2: code span
    /!?\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"\n]*")?\s*\)/.source, // 3, 4: link or image
    /<((?:https?|mailto):[^>\s]+)>/.source, // 5: autolink
    /((?:https?:\/\/|www\.)[^\s<>]*[^\s<>.,;:!?)\]'"])/.source, // 6: bare URL
    /\*\*(?=\S)(.+?)(?<=\S)\*\*/.source, // 7: bold
    /__(?=\S)(.+?)(?<=\S)__/.source, // 8: bold
    /~~(?=\S)(.+?)(?<=\S)~~/.source, // 9: strikethrough
    /\*(?=[^\s*])(.+?)(?<=[^\s*])\*/.source, // 10: italic
    /(?<![\p{L}\p{N}_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\p{L}\p{N}_])/u.source, // 11: italic
  ].join("|"),
  "gu",
);

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

/** Converts the agent's Markdown to Slack mrkdwn. */
export function markdownToMrkdwn(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const marker = FENCE.exec(line)?.[1];
    if (fence === undefined && marker !== undefined) {
      // Slack shows a language tag as the first line of the code, so it is dropped.
      fence = marker;
      out.push("```");
      continue;
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) {
        fence = undefined;
        out.push("```");
      } else {
        out.push(escapeSlackText(line));
      }
      continue;
    }
    out.push(convertLine(line));
  }
  if (fence !== undefined) out.push("```");
  return out.join("\n");
}

function convertLine(line: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
  if (heading) return `*${inline(stripEmphasis(heading[1] ?? ""))}*`;
  if (/^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/.test(line)) return "──────────";
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1] ?? ""}• ${inline(bullet[2] ?? "")}`;
  const quote = /^\s{0,3}>\s?(.*)$/.exec(line);
  // Slack stores a typed quote as "&gt; text" and renders it as a quote, so the escaped marker is what it expects.
  if (quote) return `&gt; ${inline(quote[1] ?? "")}`;
  return inline(line);
}

function stripEmphasis(text: string): string {
  return text.replace(/\*\*|__/g, "");
}

function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    const index = match.index;
    out += plainSlackText(text.slice(last, index));
    out += convertToken(match);
    last = index + match[0].length;
  }
  return out + plainSlackText(text.slice(last));
}

function convertToken(m: RegExpMatchArray): string {
  if (m[2] !== undefined) return "`" + escapeSlackText(m[2]) + "`";
  if (m[4] !== undefined) return link(m[3] ?? "", m[4]);
  if (m[5] !== undefined) return `<${safeUrl(m[5])}>`;
  if (m[6] !== undefined) return escapeSlackText(m[6]);
  if (m[7] !== undefined) return `*${inline(m[7])}*`;
  if (m[8] !== undefined) return `*${inline(m[8])}*`;
  if (m[9] !== undefined) return `~${inline(m[9])}~`;
  if (m[10] !== undefined) return `_${inline(m[10])}_`;
  if (m[11] !== undefined) return `_${inline(m[11])}_`;
  return plainSlackText(m[0]);
}

function link(label: string, url: string): string {
  // Only web and mail links become Slack links; anything else (javascript:, relative paths) stays visible text.
  if (!/^(?:https?:\/\/|mailto:)/i.test(url)) return plainSlackText(label ? `${label} (${url})` : url);
  const text = plainSlackText(stripEmphasis(label).trim()).replace(/\|/g, "¦");
  return text ? `<${safeUrl(url)}|${text}>` : `<${safeUrl(url)}>`;
}

function safeUrl(url: string): string {
  return escapeSlackText(url).replace(/\|/g, "%7C");
}
