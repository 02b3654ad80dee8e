import { describe, it, expect } from "vitest";
import { htmlToText } from "./html-to-text.js";
import { decodeEntities } from "./html-entities.js";

describe("htmlToText", () => {
  it("puts the title first and drops scripts, styles, noscript and svg", () => {
    const html = `<!doctype html><html><head><title> My  Page </title>
      <style>body { color: red }</style><script>var secret = "<p>not text</p>";</script></head>
      <body><noscript>enable js</noscript><svg viewBox="0 0 1 1"><text>icon</text></svg><p>Hello world</p></body></html>`;
    expect(htmlToText(html)).toBe("My Page\n\nHello world");
  });

  it("turns block elements into line breaks and collapses whitespace", () => {
    const html = `<h1>Heading</h1>
      <p>First    paragraph
         spans lines.</p><div>one</div><div>two</div>line<br>break<ul><li>alpha</li><li>beta</li></ul>`;
    expect(htmlToText(html)).toBe(
      "Heading\n\nFirst paragraph spans lines.\n\none\ntwo\nline\nbreak\n\n- alpha\n- beta",
    );
  });

  it("writes links as text followed by the resolved URL", () => {
    const html = `<p>Read <a href="/docs?a=1&amp;b=2">the   docs</a> or <a href='https://x.test/'>https://x.test/</a>.
      <a href="#top">Top</a> <a href="javascript:alert(1)">Click</a> <a href="/icon"><img src="i.png"></a></p>`;
    expect(htmlToText(html, { baseUrl: "https://site.test/guide/" })).toBe(
      "Read the docs (https://site.test/docs?a=1&b=2) or https://x.test/. Top Click",
    );
  });

  it("decodes named and numeric entities", () => {
    expect(htmlToText("<p>Fish &amp; chips &lt;3 &#8212; caf&#xE9; &copy;&nbsp;2024 &unknown;</p>")).toBe(
      "Fish & chips <3 — café © 2024 &unknown;",
    );
  });

  it("keeps the layout of preformatted text", () => {
    const html = "<p>Code:</p><pre>if (x) {\n    return 1;\n}</pre><p>after</p>";
    expect(htmlToText(html)).toBe("Code:\n\nif (x) {\n    return 1;\n}\n\nafter");
  });

  it("ignores comments and separates table cells", () => {
    const html = "<table><tr><th>Name</th><th>Age</th></tr><!-- <p>hidden</p> --><tr><td>Ann</td><td>31</td></tr></table>";
    expect(htmlToText(html)).toBe("Name Age\nAnn 31");
  });

  it("survives unterminated markup", () => {
    expect(htmlToText("<p>before<script>never closed")).toBe("before");
    expect(htmlToText("<p>text <a href='https://a.test/'>dangling")).toBe("text dangling (https://a.test/)");
  });
});

describe("decodeEntities", () => {
  it("replaces invalid code points with the replacement character", () => {
    expect(decodeEntities("&#0;&#xD800;&#1114112;")).toBe("\uFFFD\uFFFD\uFFFD");
  });

  it("leaves text without references untouched", () => {
    expect(decodeEntities("a & b")).toBe("a & b");
  });
});
