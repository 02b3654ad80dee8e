import { describe, expect, it } from "vitest";
import { keepsAllCharacters, markedPlainText, markupSoup, mixedAnswers, modelAnswers } from "../../../test/support/markdown-corpus.js";
import { markdownToMrkdwn } from "./mrkdwn.js";

// Slack's own syntax the renderer may write: a web or mail link, with or without a label.
const SLACK_LINK = /<((?:https?:\/\/|mailto:)[^<>|\s]+)(?:\|([^<>]*))?>/g;

/** What a reader sees: links as their labels (or URLs), entities decoded, zero-width spaces gone. */
function visibleText(mrkdwn: string): string {
  return mrkdwn
    .replace(SLACK_LINK, (_, url: string, label: string | undefined) => (label ?? url).replace(/¦/g, "|"))
    .replace(/\u200B/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function expectRendersWell(markdown: string): void {
  const mrkdwn = markdownToMrkdwn(markdown);
  const outsideLinks = mrkdwn.replace(SLACK_LINK, "");
  expect(outsideLinks, mrkdwn).not.toMatch(/[<>]/);
  expect(outsideLinks.replace(/&(amp|lt|gt);/g, ""), mrkdwn).not.toContain("&");
  expect(mrkdwn, mrkdwn).not.toMatch(/@(channel|here|everyone)\b/i);
  expect(keepsAllCharacters(visibleText(mrkdwn), markedPlainText(markdown)), mrkdwn).toEqual({ ok: true });
}

describe("the Markdown corpus rendered for Slack", () => {
  it.each(modelAnswers().map((answer, index) => [index + 1, answer] as const))("answer %i escapes everything but its links and keeps every character", (_, answer) => {
    expectRendersWell(answer);
  });

  it("keeps those guarantees for seeded random mixes of the corpus lines", () => {
    for (const document of mixedAnswers(300, 11)) expectRendersWell(document);
  });

  it("keeps them for seeded random soups of Markdown's special characters", () => {
    for (const document of markupSoup(500, 5)) expectRendersWell(document);
  });

  it("lets no broadcast through, however it is written", () => {
    for (const answer of ["<!channel>", "<!here|here>", "\\@here", "@**everyone**", "`@channel`", "[x](https://a.test/@here)", "> @Here\n- @EVERYONE"]) {
      const mrkdwn = markdownToMrkdwn(answer);
      expect(mrkdwn, answer).not.toMatch(/<!|@(channel|here|everyone)\b/i);
    }
  });
});
