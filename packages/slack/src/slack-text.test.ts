import { describe, expect, it } from "vitest";
import { decodeSlackText } from "./slack-text.js";

const bot = { userId: "UBOT", name: "hermes" };

describe("decodeSlackText", () => {
  it("drops a leading mention of the bot and reports the mention", () => {
    expect(decodeSlackText("<@UBOT> /status", bot)).toEqual({ text: "/status", mentionedBot: true });
    expect(decodeSlackText("<@UBOT|hermes>: what is up?", bot)).toEqual({ text: "what is up?", mentionedBot: true });
  });

  it("names the bot and other people where they are mentioned later in the text", () => {
    expect(decodeSlackText("ask <@UBOT> or <@U2|ada> or <@U3>", bot)).toEqual({ text: "ask @hermes or @ada or @U3", mentionedBot: true });
    expect(decodeSlackText("no mention here", bot).mentionedBot).toBe(false);
  });

  it("turns channels, broadcasts, user groups and links into readable text", () => {
    const raw = "in <#C1|general> and <#C2>, <!here> <!subteam^S1|@ops> see <https://a.test/x|the doc> or <https://b.test> or <mailto:a@b.test|a@b.test> <!date^1392734382^{date}|Feb 18>";
    expect(decodeSlackText(raw, bot).text).toBe("in #general and #C2, @here @ops see the doc (https://a.test/x) or https://b.test or a@b.test Feb 18");
  });

  it("unescapes Slack's entities once", () => {
    expect(decodeSlackText("a &lt; b &amp;&amp; c &gt; d &amp;lt;", bot).text).toBe("a < b && c > d &lt;");
  });
});
