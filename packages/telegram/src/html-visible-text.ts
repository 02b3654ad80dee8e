const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * What Telegram HTML says in plain words, for resending text Telegram could not parse: tags dropped (a link keeps its
 * address after its label), entities decoded.
 */
export function visibleTextOfHtml(html: string): string {
  const withAddresses = html.replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_, href: string, label: string) => {
    const shown = label.replace(/<[^>]*>/g, "");
    return shown.trim() === "" || shown === href ? href : `${shown} (${href})`;
  });
  // Decoded once, at the end, so an escaped "&amp;lt;" stays the text "&lt;".
  return decodeEntities(withAddresses.replace(/<[^>]*>/g, ""));
}

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|#\d{1,7}|#x[0-9a-f]{1,6});/gi, (_, name: string) => {
    const lower = name.toLowerCase();
    const named = NAMED[lower];
    if (named !== undefined) return named;
    const code = lower.startsWith("#x") ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}
