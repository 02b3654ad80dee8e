import type { Message } from "@mariozechner/pi-ai";
import { userRequestText } from "../context/compression-note.js";
import type { ReflectionFramework } from "./framework.js";

/** How strongly a conversation's words point at one framework; it orders frameworks and never decides whether to review. */
export interface Relevance {
  frameworkId: string;
  /** The framework keywords found, as written in the framework, each once. */
  matched: string[];
}

// Scripts written without spaces between words have no word boundaries to respect.
const UNSPACED_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
const WORD_CHAR_BEFORE = "(?<![\\p{L}\\p{N}_])";
const WORD_CHAR_AFTER = "(?![\\p{L}\\p{N}_])";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The pattern one framework keyword stands for (see the keyword rules in framework.ts). */
export function keywordPattern(keyword: string): RegExp | undefined {
  const trimmed = keyword.trim();
  const prefix = trimmed.endsWith("*");
  const stem = (prefix ? trimmed.slice(0, -1) : trimmed).trim();
  if (stem === "") return undefined;
  const body = stem
    .split(/[\s-]+/)
    .filter((part) => part !== "")
    .map(escapeRegExp)
    .join("[\\s-]+");
  if (UNSPACED_SCRIPT.test(stem)) return new RegExp(body, "iu");
  const ending = prefix ? "" : WORD_CHAR_AFTER;
  return new RegExp(`${WORD_CHAR_BEFORE}${body}${ending}`, "iu");
}

/** What the person wrote in this conversation; assistant replies and tool output say nothing about their intent. */
export function userWords(messages: readonly Message[]): string {
  return messages
    .map((message) => userRequestText(message))
    .filter((text): text is string => text !== undefined)
    .join("\n");
}

export function frameworkKeywords(framework: ReflectionFramework): string[] {
  const all = [...(framework.keywords ?? []), ...framework.dimensions.flatMap((dimension) => dimension.keywords)];
  const seen = new Set<string>();
  return all.filter((keyword) => {
    const key = keyword.trim().toLowerCase();
    if (key === "" || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The framework keywords in the user's messages (any language: keywords only ever help, see rankFrameworks). */
export function checkRelevance(framework: ReflectionFramework, messages: readonly Message[]): Relevance {
  return relevanceOfText(framework, userWords(messages));
}

export function relevanceOfText(framework: ReflectionFramework, text: string): Relevance {
  const matched = text.trim() === "" ? [] : frameworkKeywords(framework).filter((keyword) => keywordPattern(keyword)?.test(text) === true);
  return { frameworkId: framework.id, matched };
}

/**
 * Every framework, the ones whose keywords the user used most first (ties keep the configured order). Keywords are
 * written in one language while people write in many, so a framework no keyword matched is still audited when there
 * is room: the auditor itself judges a dimension that does not apply as covered.
 */
export function rankFrameworks(
  frameworks: readonly ReflectionFramework[],
  messages: readonly Message[],
): Array<{ framework: ReflectionFramework; relevance: Relevance }> {
  const text = userWords(messages);
  return frameworks
    .map((framework) => ({ framework, relevance: relevanceOfText(framework, text) }))
    .sort((a, b) => b.relevance.matched.length - a.relevance.matched.length);
}
