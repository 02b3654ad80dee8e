import { describe, expect, it } from "vitest";
import { conversationBuilder } from "../context/conversation-fixture.js";
import { SUMMARY_MARKER } from "../context/compression-note.js";
import type { ReflectionFramework } from "./framework.js";
import { checkRelevance, keywordPattern, rankFrameworks, relevanceOfText } from "./relevance.js";
import { cookingFramework, researchConversation, researchFramework, smallTalk } from "./test-fixtures.js";

function frameworkWith(keywords: string[]): ReflectionFramework {
  return { id: "f", name: "F", description: "d", dimensions: [{ id: "d", name: "D", description: "d", keywords }] };
}

describe("checkRelevance", () => {
  it("finds the keywords of a research conversation and none in small talk", () => {
    expect(checkRelevance(researchFramework, researchConversation())).toEqual({
      frameworkId: "research-answer-quality",
      matched: ["research*", "source*", "cite*", "latest", "evidence"],
    });
    expect(checkRelevance(researchFramework, smallTalk())).toEqual({ frameworkId: "research-answer-quality", matched: [] });
  });

  it("counts only the user's own words, not replies, tool output or compression notes", () => {
    const talk = conversationBuilder();
    const messages = [
      talk.user(`${SUMMARY_MARKER}\n\nThe user wanted research with sources.`),
      talk.user("thanks"),
      talk.reply("Here is the latest research, with sources and evidence."),
      talk.result("call-1", "web_search", "research sources evidence latest"),
    ];
    expect(checkRelevance(researchFramework, messages).matched).toEqual([]);
  });

  it("counts each keyword once", () => {
    const talk = conversationBuilder();
    expect(checkRelevance(researchFramework, [talk.user("Can you cite that? Cite it properly.")]).matched).toEqual(["cite*"]);
  });

  it("matches case-insensitively on word boundaries, with prefixes, phrases and unspaced scripts", () => {
    const hits = (keyword: string, text: string) => relevanceOfText(frameworkWith([keyword]), text).matched.length === 1;
    expect(hits("source", "Which SOURCE is that?")).toBe(true);
    expect(hits("source", "outsourced work")).toBe(false);
    expect(hits("source", "sources please")).toBe(false);
    expect(hits("source*", "sources please")).toBe(true);
    expect(hits("up to date", "is this up-to-date?")).toBe(true);
    expect(hits("up to date", "update it")).toBe(false);
    expect(hits("tl;dr", "give me the TL;DR")).toBe(true);
    expect(hits("vs", "cats vs. dogs")).toBe(true);
    expect(hits("投资", "我想投资股票")).toBe(true);
    expect(hits("résumé", "my Résumé here")).toBe(true);
    expect(keywordPattern("  *  ")).toBeUndefined();
  });
});

describe("rankFrameworks", () => {
  it("orders every framework by keywords found, never leaving one out", () => {
    const talk = conversationBuilder();
    const messages = [talk.user("A bread recipe: research the ingredients and cite a source.")];
    const ranked = rankFrameworks([cookingFramework, researchFramework], messages);
    expect(ranked.map((entry) => [entry.framework.id, entry.relevance.matched.length])).toEqual([
      ["research-answer-quality", 3],
      ["recipe-quality", 2],
    ]);
    const chinese = [talk.user("请帮我查一下间歇性断食的最新研究，并注明来源。")];
    expect(rankFrameworks([cookingFramework, researchFramework], chinese).map((entry) => entry.framework.id)).toEqual([
      "recipe-quality",
      "research-answer-quality",
    ]);
  });
});
