import { describe, expect, it } from "vitest";
import { visibleTextOfHtml } from "./html-visible-text.js";
import { markdownToTelegramHtml } from "./markdown-to-html.js";

describe("visibleTextOfHtml", () => {
  it("drops tags, keeps link addresses and decodes entities once", () => {
    expect(visibleTextOfHtml('<b>Hi</b> <a href="https://x.org/?a=1&amp;b=2"><i>docs</i></a>: 1 &lt; 2 &amp;&amp; &amp;lt; &#128512;')).toBe("Hi docs (https://x.org/?a=1&b=2): 1 < 2 && &lt; 😀");
    expect(visibleTextOfHtml('<a href="https://x.org">https://x.org</a>')).toBe("https://x.org");
  });

  it("gives the words of what the Markdown renderer makes", () => {
    expect(visibleTextOfHtml(markdownToTelegramHtml("**Bold** and `a < b` in [the guide](https://example.org/guide_(v2))"))).toBe("Bold and a < b in the guide (https://example.org/guide_(v2))");
  });
});
