import { describe, expect, it } from "vitest";
import { conversationBuilder } from "../context/conversation-fixture.js";
import { SUMMARY_MARKER } from "../context/compression-note.js";
import type { ReflectionFramework } from "./framework.js";
import { checkRelevance, keywordPattern, relevanceOfText, relevantFrameworks } from "./relevance.js";
import { cookingFramework, researchConversation, researchFramework, smallTalk } from "./test-fixtures.js";

function frameworkWith(keywords: string[]): ReflectionFramework {
  return { id: "f", name: "F", description: "d", dimensions: [{ id: "d", name: "D", description: "d", keywords }] };
}

describe("checkRelevance", () => {
  it("finds a research conversation relevant and small talk not", () => {
    expect(checkRelevance(researchFramework, researchConversation())).toEqual({
      frameworkId: "research-answer-quality",
      relevant: true,
      matched: ["research*", "source*", "cite*", "latest", "evidence"],
    });
    expect(checkRelevance(researchFramework, smallTalk())).toMatchObject({ relevant: false, matched: [] });
  });

  it("counts only the user's own words, not replies, tool output or compression notes", () => {
    const talk = conversationBuilder();
    const messages = [
      talk.user(`${SUMMARY_MARKER}\n\nThe user wanted research with sources.`),
      talk.user("thanks"),
      talk.reply("Here is the latest research, with sources and evidence."),
      talk.result("call-1", "web_search", "research sources evidence latest"),
    ];
    expect(checkRelevance(researchFramework, messages)).toMatchObject({ relevant: false, matched: [] });
  });

  it("has a configurable threshold of distinct keywords", () => {
    const talk = conversationBuilder();
    const messages = [talk.user("Can you cite that? Cite it properly.")];
    expect(checkRelevance(researchFramework, messages).matched).toEqual(["cite*"]);
    expect(checkRelevance(researchFramework, messages).relevant).toBe(false);
    expect(checkRelevance(researchFramework, messages, { minKeywordHits: 1 }).relevant).toBe(true);
  });

  it("matches case-insensitively on word boundaries, with prefixes, phrases and unspaced scripts", () => {
    const hits = (keyword: string, text: string) => relevanceOfText(frameworkWith([keyword]), text, { minKeywordHits: 1 }).relevant;
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

describe("relevantFrameworks", () => {
  it("keeps only relevant frameworks, most keywords first", () => {
    const talk = conversationBuilder();
    const messages = [talk.user("A bread recipe: research the ingredients and cite a source.")];
    const found = relevantFrameworks([cookingFramework, researchFramework], messages);
    expect(found.map((entry) => [entry.framework.id, entry.relevance.matched.length])).toEqual([
      ["research-answer-quality", 3],
      ["recipe-quality", 2],
    ]);
    expect(relevantFrameworks([cookingFramework], researchConversation())).toEqual([]);
  });
});
