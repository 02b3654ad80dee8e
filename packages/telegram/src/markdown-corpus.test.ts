import { describe, expect, it } from "vitest";
import { keepsAllCharacters, markedPlainText, markupSoup, mixedAnswers, modelAnswers } from "../../../test/support/markdown-corpus.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";
import { TELEGRAM_TEXT_LIMIT } from "./text-limit.js";

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"' };
const TAG = /^<(\/?)(b|i|s|u|code|pre|a|blockquote)((?: [a-z]+="[^"<>]*")*)>/;

/**
 * A small checker of what Telegram's HTML mode accepts: only these tags, balanced; `a` with an href and `code` with a
 * language class only; nothing inside `code`, only `code` inside `pre`, no quote in a quote; `<`, `>` and `&` outside
 * tags only as entities. Returns the visible text.
 */
function checkTelegramHtml(html: string): { ok: true; text: string } | { ok: false; error: string } {
  const open: string[] = [];
  let text = "";
  for (let i = 0; i < html.length; ) {
    const rest = html.slice(i);
    if (rest.startsWith("<")) {
      const tag = TAG.exec(rest);
      if (!tag) return { ok: false, error: `not an allowed tag at ${i}: ${rest.slice(0, 30)}` };
      const [whole, closing, name = "", attributes = ""] = tag;
      if (closing) {
        if (open.pop() !== name) return { ok: false, error: `unbalanced </${name}> at ${i}` };
      } else {
        const parent = open.at(-1);
        if (parent === "code") return { ok: false, error: `<${name}> inside <code> at ${i}` };
        if (parent === "pre" && name !== "code") return { ok: false, error: `<${name}> inside <pre> at ${i}` };
        if (name === "blockquote" && open.includes("blockquote")) return { ok: false, error: `nested blockquote at ${i}` };
        const allowed = name === "a" ? /^ href="[^"]+"$/ : name === "code" && parent === "pre" ? /^( class="language-[^"]+")?$/ : /^$/;
        if (!allowed.test(attributes)) return { ok: false, error: `attributes ${attributes} on <${name}> at ${i}` };
        open.push(name);
      }
      i += whole.length;
      continue;
    }
    if (rest.startsWith(">")) return { ok: false, error: `bare > at ${i}` };
    if (rest.startsWith("&")) {
      const entity = /^&(lt|gt|amp|quot);/.exec(rest)?.[0];
      if (entity === undefined) return { ok: false, error: `bare & at ${i}` };
      text += ENTITIES[entity] ?? "";
      i += entity.length;
      continue;
    }
    text += html[i] ?? "";
    i += 1;
  }
  return open.length === 0 ? { ok: true, text } : { ok: false, error: `unclosed <${open.join("> <")}>` };
}

function expectRendersWell(markdown: string): void {
  const html = markdownToTelegramHtml(markdown);
  const checked = checkTelegramHtml(html);
  if (!checked.ok) throw new Error(`${checked.error}\nin: ${html}`);
  expect(keepsAllCharacters(checked.text, markedPlainText(markdown)), html).toEqual({ ok: true });
  expect(checked.text.length, html).toBeLessThanOrEqual(Math.max(markdown.length, TELEGRAM_TEXT_LIMIT));
}

describe("the Markdown corpus rendered for Telegram", () => {
  it("has enough answers to mean something", () => {
    expect(modelAnswers().length).toBeGreaterThanOrEqual(30);
  });

  it.each(modelAnswers().map((answer, index) => [index + 1, answer] as const))("answer %i is well-formed HTML that keeps every character", (_, answer) => {
    expectRendersWell(answer);
  });

  it("keeps those guarantees for seeded random mixes of the corpus lines", () => {
    for (const document of mixedAnswers(300, 7)) expectRendersWell(document);
  });

  it("keeps them for seeded random soups of Markdown's special characters", () => {
    for (const document of markupSoup(500, 3)) expectRendersWell(document);
  });

  it("rejects what Telegram would (the checker checks)", () => {
    expect(checkTelegramHtml("<b><i>x</b></i>").ok).toBe(false);
    expect(checkTelegramHtml("<blockquote><blockquote>x</blockquote></blockquote>").ok).toBe(false);
    expect(checkTelegramHtml('<a href="x" onclick="y">z</a>').ok).toBe(false);
    expect(checkTelegramHtml("a & b").ok).toBe(false);
    expect(checkTelegramHtml("<div>x</div>").ok).toBe(false);
  });

  it("never passes raw HTML or unsafe links through", () => {
    for (const answer of modelAnswers()) {
      const html = markdownToTelegramHtml(answer);
      expect(html).not.toMatch(/<(script|img|div|details|br)\b/i);
      expect(html).not.toMatch(/href="(javascript|data):/i);
    }
  });
});
