import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../support/run-cli.js";

/** A seeded generator, so every run of a benchmark stores and asks for the same text. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface WordSource {
  /** Words by frequency rank (most frequent first). */
  words: readonly string[];
  /** One word, drawn Zipf-like (rank r with weight 1/r), as real prose is. */
  word(): string;
  /** A sentence of `count` words. */
  sentence(count: number): string;
}

/**
 * Real English words, taken from this repository's own prose (README, design notes), ranked by how often they occur
 * there, so stored messages and search queries have natural word frequencies instead of uniform random tokens.
 */
export function wordSource(random: () => number): WordSource {
  const counts = new Map<string, number>();
  for (const file of ["README.md", "../shared/DESIGN.md", "../shared/docs/stack.md"]) {
    let text: string;
    try {
      text = readFileSync(path.join(REPO_ROOT, file), "utf8");
    } catch {
      continue;
    }
    for (const match of text.toLowerCase().matchAll(/[a-z]{3,14}/g)) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
  }
  const words = [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([word]) => word);
  if (words.length < 500) throw new Error(`only ${words.length} distinct words found for the benchmark corpus`);
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= words.length; rank += 1) cumulative.push((total += 1 / rank));
  const word = (): string => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((cumulative[mid] ?? 0) < target) low = mid + 1;
      else high = mid;
    }
    return words[low] ?? "word";
  };
  return { words, word, sentence: (count) => Array.from({ length: count }, word).join(" ") };
}

export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

/** BENCH_QUICK=1: smaller corpora and fewer rounds, for a quick look while working. */
export const QUICK = process.env.BENCH_QUICK === "1";
