import { describe, expect, it } from "vitest";
import { parseTelegramHtml } from "../../../test/fakes/telegram/telegram-html.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";

function visible(html: string): string {
  const parsed = parseTelegramHtml(html);
  if (!parsed.ok) throw new Error(`${parsed.error} in ${html}`);
  return parsed.text;
}

describe("markdownToTelegramHtml", () => {
  it("turns emphasis, code and links into Telegram tags", () => {
    expect(markdownToTelegramHtml("**bold**, *italic*, _also_, ~~gone~~ and `x < y`")).toBe(
      "<b>bold</b>, <i>italic</i>, <i>also</i>, <s>gone</s> and <code>x &lt; y</code>",
    );
    expect(markdownToTelegramHtml("see [the docs](https://example.org/a?b=1&c=\"2\")")).toBe(
      'see <a href="https://example.org/a?b=1&amp;c=&quot;2&quot;">the docs</a>',
    );
  });

  it("escapes everything that is not markup", () => {
    expect(markdownToTelegramHtml("a <b> & c > d")).toBe("a &lt;b&gt; &amp; c &gt; d");
    expect(markdownToTelegramHtml("2 * 3 * 4 and snake_case_name and \\*literal\\*")).toBe("2 * 3 * 4 and snake_case_name and *literal*");
  });

  it("keeps fenced code verbatim inside pre with its language", () => {
    const html = markdownToTelegramHtml("Run:\n```ts\nconst a = b < c && **d**;\n```\ndone");
    expect(html).toBe('Run:\n<pre><code class="language-ts">const a = b &lt; c &amp;&amp; **d**;</code></pre>\ndone');
    expect(markdownToTelegramHtml("```\nplain\n```")).toBe("<pre>plain</pre>");
  });

  it("renders headings bold, bullets as dots and quotes as blockquotes", () => {
    expect(markdownToTelegramHtml("## Plan\n- one\n* two\n> quoted *text*")).toBe(
      "<b>Plan</b>\n• one\n• two\n<blockquote>quoted <i>text</i></blockquote>",
    );
  });

  it("leaves unpaired markers and unsafe links as text", () => {
    expect(markdownToTelegramHtml("**unclosed and `open")).toBe("**unclosed and `open");
    expect(markdownToTelegramHtml("[click](javascript:alert(1))")).toBe("[click](javascript:alert(1))");
    expect(markdownToTelegramHtml("[click](ftp://host/file)")).toBe("click (ftp://host/file)");
  });

  it("nests inline markup", () => {
    expect(markdownToTelegramHtml("**bold with `code` and *italic***")).toBe("<b>bold with <code>code</code> and <i>italic</i></b>");
  });

  it("always yields HTML Telegram accepts, never longer in visible text than the Markdown", () => {
    const samples = [
      "**a *b** c*",
      "*a **b* c**",
      "<<>>&&;;",
      "`a``b```c",
      "[x](https://a.b/<c>)",
      "__init__ and __main__",
      "~~~\nfence\n~~~\n```js\nunterminated",
      "> quote **bold\n> still** quote",
      "# **Title** with [link](https://x.y)",
      "*\n*\n**\n_\n__",
    ];
    for (const sample of samples) {
      const text = visible(markdownToTelegramHtml(sample));
      expect(text.length).toBeLessThanOrEqual(sample.length);
    }
  });

  it("survives random markup soup", () => {
    const alphabet = ["*", "**", "_", "__", "`", "```", "~~", "[", "](", "https://e.x", ")", "<", ">", "&", "\\", "#", " ", "\n", "> ", "- ", "a", "é", "😀"];
    let seed = 42;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 500; round += 1) {
      const parts: string[] = [];
      for (let n = next() % 40; n > 0; n -= 1) parts.push(alphabet[next() % alphabet.length] ?? "");
      const sample = parts.join("");
      const text = visible(markdownToTelegramHtml(sample));
      expect(text.length).toBeLessThanOrEqual(sample.length);
    }
  });
});
