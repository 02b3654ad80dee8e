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
});

describe("plainSlackText", () => {
  it("escapes and neutralises without converting markup", () => {
    expect(plainSlackText("**x** <!here> @channel & co")).toBe("**x** &lt;!here&gt; @\u200Bchannel &amp; co");
  });
});
