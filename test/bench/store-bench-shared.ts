import type { Message } from "@mariozechner/pi-ai";
import type { SearchQuery } from "@hermes/store";
import type { WordSource } from "./bench-words.js";

export interface TimedTotal {
  wallMs: number;
  cpuMs: number;
}

/**
 * The store's append and a raw driver's insert of the same runs, in alternating batches so machine load hits both
 * alike; each side's wall and CPU time (this process's) summed over its batches.
 */
export async function compareAppends(
  transcripts: readonly (readonly Message[])[],
  batches: number,
  storeAppend: (messages: readonly Message[]) => Promise<void>,
  rawAppend: (messages: readonly Message[]) => Promise<void> | void,
): Promise<{ store: TimedTotal; raw: TimedTotal }> {
  const store = { wallMs: 0, cpuMs: 0 };
  const raw = { wallMs: 0, cpuMs: 0 };
  const timed = async (into: TimedTotal, work: () => Promise<void>): Promise<void> => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    await work();
    const used = process.cpuUsage(cpu);
    into.cpuMs += (used.user + used.system) / 1000;
    into.wallMs += performance.now() - wall;
  };
  const perBatch = Math.ceil(transcripts.length / batches);
  for (let batch = 0; batch < batches; batch += 1) {
    const slice = transcripts.slice(batch * perBatch, (batch + 1) * perBatch);
    await timed(store, async () => {
      for (const messages of slice) await storeAppend(messages);
    });
    await timed(raw, async () => {
      for (const messages of slice) await rawAppend(messages);
    });
  }
  return { store, raw };
}

/**
 * The benchmark's search queries, one to three words, every third with a rare word (rank past the first thousand,
 * the way a person recalls a name), each for a random one of `users`; the latency of each, in ms.
 */
export async function searchLatencies(
  search: (query: SearchQuery) => Promise<readonly unknown[]>,
  options: { queries: number; users: number; words: WordSource; random: () => number },
): Promise<{ samples: number[]; hits: number }> {
  const { words, random } = options;
  const samples: number[] = [];
  let hits = 0;
  for (let i = 0; i < options.queries; i += 1) {
    const count = 1 + (i % 3);
    const text = i % 3 === 2 ? `${words.word()} ${words.words[1_000 + Math.floor(random() * (words.words.length - 1_000))] ?? ""}` : words.sentence(count);
    const userId = String(Math.floor(random() * options.users));
    const started = performance.now();
    hits += (await search({ text, platform: "telegram", userId, limit: 5 })).length;
    samples.push(performance.now() - started);
  }
  return { samples, hits };
}
