import { describe, expect, it } from "vitest";
import { parseTelegramHtml } from "../../../test/fakes/telegram/telegram-html.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";
import { TELEGRAM_TEXT_LIMIT } from "./text-limit.js";

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
    expect(markdownToTelegramHtml("[click](javascript:alert(1))")).toBe("click (javascript:alert(1))");
    expect(markdownToTelegramHtml("![x](data:image/png;base64,AAAA)")).toBe("x (data:image/png;base64,AAAA)");
    expect(markdownToTelegramHtml("[click](ftp://host/file)")).toBe("click (ftp://host/file)");
  });

  it("nests inline markup", () => {
    expect(markdownToTelegramHtml("**bold with `code` and *italic***")).toBe("<b>bold with <code>code</code> and <i>italic</i></b>");
  });

  it("keeps links with parentheses and underscores whole", () => {
    expect(markdownToTelegramHtml("see [Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) now")).toBe(
      'see <a href="https://en.wikipedia.org/wiki/Rust_(programming_language)">Rust</a> now',
    );
    expect(markdownToTelegramHtml("<https://example.org/a_b_c> and https://example.org/x_(y)")).toBe(
      '<a href="https://example.org/a_b_c">https://example.org/a_b_c</a> and <a href="https://example.org/x_(y)">https://example.org/x_(y)</a>',
    );
    expect(markdownToTelegramHtml('[**bold** link](https://x.test/?q="a"&b)')).toBe('<a href="https://x.test/?q=&quot;a&quot;&amp;b"><b>bold</b> link</a>');
  });

  it("nests emphasis across markers", () => {
    expect(markdownToTelegramHtml("***both*** and **bold _italic_ ~~struck~~**")).toBe("<i><b>both</b></i> and <b>bold <i>italic</i> <s>struck</s></b>");
  });

  it("numbers ordered lists from their start and indents nested lists", () => {
    expect(markdownToTelegramHtml("3. three\n4. four\n   - sub *a*\n     1. deep\n\n- [x] done\n- [ ] todo")).toBe(
      "3. three\n4. four\n  • sub <i>a</i>\n    1. deep\n\n• ☑ done\n• ☐ todo",
    );
  });

  it("keeps blank lines between blocks and shows rules as a line", () => {
    expect(markdownToTelegramHtml("one\n\ntwo\n\n---\n\n```\ncode\n```")).toBe("one\n\ntwo\n\n───\n\n<pre>code</pre>");
  });

  it("lays tables out as aligned monospace blocks", () => {
    const table = "| Name | Qty | Note |\n|:-----|----:|:----:|\n| apple | 3 | *fresh* |\n| kiwi & co | 12 | `<b>` |";
    expect(markdownToTelegramHtml(table)).toBe(
      "<pre>Name      | Qty | Note\n----------+-----+------\napple     |   3 | fresh\nkiwi &amp; co |  12 |  &lt;b&gt;</pre>",
    );
    expect(markdownToTelegramHtml("|a|b|\n|-|-|\n|long cell|x|\n|c|d|")).toBe("<pre>a         | b\n----------+--\nlong cell | x\nc         | d</pre>");
  });

  it("keeps a link's URL after its words in a table, which cannot carry links", () => {
    expect(markdownToTelegramHtml("| Tool | Docs |\n|---|---|\n| marked | [guide](https://marked.js.org/?a=1&b) |\n| grammY | https://grammy.dev |")).toBe(
      "<pre>Tool   | Docs\n-------+-------------------------------------\nmarked | guide (https://marked.js.org/?a=1&amp;b)\ngrammY | https://grammy.dev</pre>",
    );
  });

  it("shows tables as written where padding would push a message that fits past Telegram's limit", () => {
    const rows = Array.from({ length: 300 }, (_, row) => `|${row % 2 === 0 ? "a long cell here" : "b"}|c|`);
    const markdown = ["|h|h|", "|-|-|", ...rows].join("\n");
    expect(markdown.length).toBeLessThanOrEqual(TELEGRAM_TEXT_LIMIT);
    expect(markdownToTelegramHtml(markdown)).toBe(`<pre>${markdown}</pre>`);
    expect(markdownToTelegramHtml(["|h|h|", "|-|-|", ...rows.slice(0, 100)].join("\n"))).toMatch(/^<pre>h {16}\| h\n/);
  });

  it("shows raw HTML as text and never nests a blockquote", () => {
    expect(markdownToTelegramHtml('<div onclick="x()">hi</div>\n\ntext <script>alert(1)</script> <u>u</u>')).toBe(
      '&lt;div onclick="x()"&gt;hi&lt;/div&gt;\n\ntext &lt;script&gt;alert(1)&lt;/script&gt; &lt;u&gt;u&lt;/u&gt;',
    );
    expect(markdownToTelegramHtml("> outer\n>\n> > inner **b**\n\nafter")).toBe("<blockquote>outer\n\n&gt; inner <b>b</b></blockquote>\n\nafter");
  });

  it("keeps link reference definitions as text, so a list of sources is not lost", () => {
    expect(markdownToTelegramHtml("See [the guide][g].\n\nSources:\n\n[g]: https://a.test/guide\n[1]: https://b.test/<x>")).toBe(
      'See <a href="https://a.test/guide">the guide</a>.\n\nSources:\n\n[g]: https://a.test/guide\n[1]: https://b.test/&lt;x&gt;',
    );
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
