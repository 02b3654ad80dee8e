import { describe, expect, it } from "vitest";
import { markdownToMrkdwn, plainSlackText } from "./mrkdwn.js";

describe("markdownToMrkdwn", () => {
  it("converts bold, italics, strikethrough and links", () => {
    expect(markdownToMrkdwn("**bold** and __also__, *it* and _it_, ~~gone~~")).toBe("*bold* and *also*, _it_ and _it_, ~gone~");
    expect(markdownToMrkdwn("see [the docs](https://example.com/a?b=1&c=2) now")).toBe("see <https://example.com/a?b=1&amp;c=2|the docs> now");
    expect(markdownToMrkdwn("<https://example.com> and https://example.com/x_y_z.")).toBe("<https://example.com> and https://example.com/x_y_z.");
  });

  it("keeps code blocks and inline code verbatim apart from escaping, and drops the language tag", () => {
    const md = "Run:\n```ts\nconst a = b && c < d; // **not bold**\n```\nthen `x * y * z` <done>";
    expect(markdownToMrkdwn(md)).toBe("Run:\n```\nconst a = b &amp;&amp; c &lt; d; // **not bold**\n```\nthen `x * y * z` &lt;done&gt;");
  });

  it("closes an unterminated code block", () => {
    expect(markdownToMrkdwn("```\ncode")).toBe("```\ncode\n```");
  });

  it("turns headings into bold lines, bullets into dots and keeps quotes", () => {
    expect(markdownToMrkdwn("## Plan **now**\n- one\n  * two\n> quoted\n1. first")).toBe("*Plan now*\n• one\n  • two\n&gt; quoted\n1. first");
  });

  it("escapes &, < and > in text", () => {
    expect(markdownToMrkdwn("a < b & c > d")).toBe("a &lt; b &amp; c &gt; d");
  });

  it("neutralises broadcasts and mentions written by the model", () => {
    const out = markdownToMrkdwn("<!channel> <!here|here> <!everyone> <@U123> @channel @here @Everyone **@here**");
    expect(out).not.toMatch(/<!|<@/);
    expect(out).not.toMatch(/@(channel|here|everyone)\b/i);
    expect(out).toContain("&lt;!channel&gt;");
    expect(out).toContain("@\u200Bchannel");
    expect(out).toContain("*@\u200Bhere*");
  });

  it("does not turn unsafe link targets into links", () => {
    expect(markdownToMrkdwn("[click](javascript:alert(1))")).toBe("click (javascript:alert(1))");
    expect(markdownToMrkdwn("[a|b](https://x.test/p|q)")).toBe("<https://x.test/p%7Cq|a¦b>");
  });

  it("leaves snake_case words and lone asterisks alone", () => {
    expect(markdownToMrkdwn("use snake_case_names and 2 * 3 * 4")).toBe("use snake_case_names and 2 * 3 * 4");
  });

  it("keeps links with parentheses and underscores whole", () => {
    expect(markdownToMrkdwn("see [Rust](https://en.wikipedia.org/wiki/Rust_(programming_language)) now")).toBe(
      "see <https://en.wikipedia.org/wiki/Rust_(programming_language)|Rust> now",
    );
    expect(markdownToMrkdwn("[**bold** <b>label</b>](https://x.test/a_b?c=1&d=2)")).toBe("<https://x.test/a_b?c=1&amp;d=2|bold &lt;b&gt;label&lt;/b&gt;>");
    expect(markdownToMrkdwn("![chart](data:image/png;base64,AAAA)")).toBe("chart (data:image/png;base64,AAAA)");
  });

  it("nests emphasis", () => {
    expect(markdownToMrkdwn("***both*** and **bold _italic_ ~~struck~~**")).toBe("_*both*_ and *bold _italic_ ~struck~*");
  });

  it("numbers ordered lists from their start, indents nested lists and shows task boxes", () => {
    expect(markdownToMrkdwn("3. three\n4. four\n   - sub *a*\n     1. deep\n\n- [x] done\n- [ ] todo")).toBe(
      "3. three\n4. four\n  • sub _a_\n    1. deep\n\n• ☑ done\n• ☐ todo",
    );
  });

  it("quotes every line of a quote, nested quotes twice", () => {
    expect(markdownToMrkdwn("> one **b**\n> two\n>\n> > inner\n\nafter")).toBe("&gt; one *b*\n&gt; two\n&gt; \n&gt; &gt; inner\n\nafter");
  });

  it("lays tables out as aligned code blocks", () => {
    expect(markdownToMrkdwn("| Name | Qty |\n|:-----|----:|\n| apple | 3 |\n| kiwi & co | 12 |")).toBe(
      "```\nName      | Qty\n----------+----\napple     |   3\nkiwi &amp; co |  12\n```",
    );
  });

  it("keeps a link's URL after its words in a table, which cannot carry links", () => {
    expect(markdownToMrkdwn("| Tool | Docs |\n|---|---|\n| Bolt | [guide](https://slack.dev/<!here>) |\n| grammY | https://grammy.dev |")).toBe(
      "```\nTool   | Docs\n-------+----------------------------------\nBolt   | guide (https://slack.dev/&lt;!here&gt;)\ngrammY | https://grammy.dev\n```",
    );
  });

  it("shows raw HTML as text and rules as a line", () => {
    expect(markdownToMrkdwn("<div>\n<!here>\n</div>\n\n---\n\ntext <script>x</script>")).toBe(
      "&lt;div&gt;\n&lt;!here&gt;\n&lt;/div&gt;\n\n──────────\n\ntext &lt;script&gt;x&lt;/script&gt;",
    );
  });

  it("keeps link reference definitions as text, so a list of sources is not lost", () => {
    expect(markdownToMrkdwn("See [the guide][g].\n\nSources:\n\n[g]: https://a.test/guide\n[1]: https://b.test/<!here>")).toBe(
      "See <https://a.test/guide|the guide>.\n\nSources:\n\n[g]: https://a.test/guide\n[1]: https://b.test/&lt;!here&gt;",
    );
  });

  it("neutralises a broadcast split across Markdown tokens", () => {
    expect(markdownToMrkdwn("\\@here and `@channel` and [@everyone](https://x.test)")).toBe(
      "@\u200Bhere and `@\u200Bchannel` and <https://x.test|@\u200Beveryone>",
    );
  });
});

describe("plainSlackText", () => {
  it("escapes and neutralises without converting markup", () => {
    expect(plainSlackText("**x** <!here> @channel & co")).toBe("**x** &lt;!here&gt; @\u200Bchannel &amp; co");
  });
});
