import type { Message } from "@mariozechner/pi-ai";
import { userRequestText } from "../context/compression-note.js";
import type { ReflectionFramework } from "./framework.js";

export const DEFAULT_MIN_KEYWORD_HITS = 2;

export interface RelevanceOptions {
  /** Distinct framework keywords the user's messages must contain; default 2. */
  minKeywordHits?: number;
}

export interface Relevance {
  frameworkId: string;
  relevant: boolean;
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

/** Cheap domain check before any model call: enough of the framework's keywords appear in the user's messages. */
export function checkRelevance(framework: ReflectionFramework, messages: readonly Message[], options: RelevanceOptions = {}): Relevance {
  return relevanceOfText(framework, userWords(messages), options);
}

export function relevanceOfText(framework: ReflectionFramework, text: string, options: RelevanceOptions = {}): Relevance {
  const threshold = Math.max(1, Math.floor(options.minKeywordHits ?? DEFAULT_MIN_KEYWORD_HITS));
  const matched = text.trim() === "" ? [] : frameworkKeywords(framework).filter((keyword) => keywordPattern(keyword)?.test(text) === true);
  return { frameworkId: framework.id, relevant: matched.length >= threshold, matched };
}

/** The relevant frameworks, the most clearly relevant first (ties keep the configured order). */
export function relevantFrameworks(
  frameworks: readonly ReflectionFramework[],
  messages: readonly Message[],
  options: RelevanceOptions = {},
): Array<{ framework: ReflectionFramework; relevance: Relevance }> {
  const text = userWords(messages);
  return frameworks
    .map((framework) => ({ framework, relevance: relevanceOfText(framework, text, options) }))
    .filter((entry) => entry.relevance.relevant)
    .sort((a, b) => b.relevance.matched.length - a.relevance.matched.length);
}
