/** Tags Telegram's HTML parse mode understands. */
const KNOWN_TAGS = new Set(["b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "a", "code", "pre", "blockquote", "tg-spoiler", "span", "tg-emoji"]);
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

export type ParsedHtml = { ok: true; text: string } | { ok: false; error: string };

/**
 * Parses text the way Telegram's `parse_mode: "HTML"` does, strictly: only known tags, properly nested and closed,
 * and every `<`, `>` and `&` outside a tag written as an entity. Returns the visible text (what the length limit
 * counts) or the error Telegram would answer with.
 */
export function parseTelegramHtml(html: string): ParsedHtml {
  const stack: string[] = [];
  let text = "";
  let i = 0;
  while (i < html.length) {
    const ch = html[i] ?? "";
    if (ch === "<") {
      const end = html.indexOf(">", i);
      if (end === -1) return fail(`Unclosed start tag at byte offset ${i}`);
      const tag = /^<(\/?)([a-z-]+)(\s[^<>]*)?>$/i.exec(html.slice(i, end + 1));
      if (!tag) return fail(`Unsupported start tag at byte offset ${i}`);
      const [, slash, rawName = ""] = tag;
      const name = rawName.toLowerCase();
      if (!KNOWN_TAGS.has(name)) return fail(`Unsupported start tag "${name}" at byte offset ${i}`);
      if (slash) {
        const open = stack.pop();
        if (open !== name) return fail(`Unexpected end tag at byte offset ${i}`);
      } else {
        if (name === "a" && !/\shref="[^"]*"/.test(tag[3] ?? "")) return fail(`Tag "a" must have an href at byte offset ${i}`);
        stack.push(name);
      }
      i = end + 1;
      continue;
    }
    if (ch === ">") return fail(`Unexpected ">" at byte offset ${i}`);
    if (ch === "&") {
      const entity = /^&(lt|gt|amp|quot|#\d{1,7}|#x[0-9a-f]{1,6});/i.exec(html.slice(i, i + 12));
      if (!entity) return fail(`Unsupported entity at byte offset ${i}`);
      const name = entity[1] ?? "";
      text += ENTITIES[name.toLowerCase()] ?? String.fromCodePoint(name.toLowerCase().startsWith("#x") ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
      i += entity[0].length;
      continue;
    }
    text += ch;
    i += 1;
  }
  const open = stack.pop();
  if (open !== undefined) return fail(`Can't find end tag corresponding to start tag "${open}"`);
  return { ok: true, text };
}

function fail(detail: string): ParsedHtml {
  return { ok: false, error: `Bad Request: can't parse entities: ${detail}` };
}
