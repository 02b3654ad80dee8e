import type { Message } from "@mariozechner/pi-ai";
import { toolCallsById } from "../context/prune-tool-results.js";
import { renderTranscript } from "../context/render-transcript.js";
import { callModel, type ModelBinding } from "../loop/model-call.js";
import { assistantText } from "../loop/result.js";
import { charCount } from "../memory/memory-entries.js";
import { detectSecret } from "../memory/secret-guard.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { DEFAULT_REFLECTION_TIMEOUT_MS } from "./auditor.js";
import { CURATION_SYSTEM_PROMPT, curationPrompt } from "./curation-prompts.js";
import { jsonObjectsIn } from "./json-extract.js";
import type { ReflectionMemory } from "./memory-port.js";

export const DEFAULT_CURATION_TRANSCRIPT_TOKENS = 3_000;
export const DEFAULT_CURATION_MAX_TOKENS = 1_000;

export interface MemoryCuratorOptions {
  model: ModelBinding;
  /** The reviewed conversation's memory; the only one the curator ever changes. */
  memory: ReflectionMemory;
  logger?: Logger;
  transcriptTokens?: number;
  maxTokens?: number;
  timeoutMs?: number;
  now?: () => number;
}

export interface CurationPlan {
  merges: Array<{ entries: string[]; text: string }>;
  drops: string[];
}

export interface CurationOutcome {
  /** Merged entries as written, one per merge applied. */
  merged: string[];
  /** Entries dropped as stale. */
  dropped: string[];
  /** Changes the model asked for that were not applied, with why. */
  refused: string[];
  error?: string;
}

export interface CurationCallOptions {
  signal?: AbortSignal;
  sessionId?: string;
}

/** Reads the curator's JSON defensively: unknown or reused entry numbers are ignored, nothing is guessed. */
export function parseCurationReply(reply: string, entries: readonly string[]): CurationPlan | undefined {
  const object = jsonObjectsIn(reply).find((candidate) => Array.isArray(candidate.merge) || Array.isArray(candidate.drop));
  if (object === undefined) return undefined;
  const used = new Set<number>();
  const claim = (value: unknown): number | undefined => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > entries.length || used.has(value)) return undefined;
    used.add(value);
    return value;
  };
  const merges: CurationPlan["merges"] = [];
  for (const item of Array.isArray(object.merge) ? (object.merge as unknown[]) : []) {
    if (typeof item !== "object" || item === null) continue;
    const record = item as Record<string, unknown>;
    const text = typeof record.text === "string" ? record.text.replace(/\s+/g, " ").trim() : "";
    const numbers = Array.isArray(record.entries) ? record.entries.filter((n) => typeof n === "number" && !used.has(n)) : [];
    if (text === "" || numbers.length < 2) continue;
    const claimed = numbers.map(claim).filter((n): n is number => n !== undefined);
    if (claimed.length >= 2) merges.push({ entries: claimed.map((n) => entries[n - 1] ?? ""), text });
  }
  const drops = (Array.isArray(object.drop) ? (object.drop as unknown[]) : [])
    .map(claim)
    .filter((n): n is number => n !== undefined)
    .map((n) => entries[n - 1] ?? "");
  return { merges, drops };
}

/**
 * The memory review (seed 000 §6.4): merges entries that say the same thing and drops ones the conversation shows
 * are stale, through the scope's own memory port. A merge never grows memory and never writes a secret.
 */
export class MemoryCurator {
  private readonly options: MemoryCuratorOptions;
  private readonly logger: Logger;

  constructor(options: MemoryCuratorOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
  }

  async curate(messages: readonly Message[], call: CurationCallOptions = {}): Promise<CurationOutcome> {
    const outcome: CurationOutcome = { merged: [], dropped: [], refused: [] };
    const read = await this.options.memory.read("memory");
    if (!read.ok) return { ...outcome, error: read.error };
    const entries = read.state.entries;
    if (entries.length === 0) return outcome;
    const transcript = renderTranscript(messages, toolCallsById(messages), this.options.transcriptTokens ?? DEFAULT_CURATION_TRANSCRIPT_TOKENS);
    const { message } = await callModel(
      { ...this.options.model, maxTokens: this.options.maxTokens ?? DEFAULT_CURATION_MAX_TOKENS },
      { systemPrompt: CURATION_SYSTEM_PROMPT, messages: [{ role: "user", content: curationPrompt(entries, transcript), timestamp: (this.options.now ?? Date.now)() }] },
      { signal: call.signal ?? new AbortController().signal, sessionId: call.sessionId, timeoutMs: this.options.timeoutMs ?? DEFAULT_REFLECTION_TIMEOUT_MS },
    );
    if (message.stopReason !== "stop") return { ...outcome, error: `the curation call ended with ${message.stopReason}: ${message.errorMessage ?? "no detail"}` };
    const plan = parseCurationReply(assistantText(message), entries);
    if (plan === undefined) return { ...outcome, error: "the curation reply has no merge or drop list" };
    for (const merge of plan.merges) await this.merge(merge, outcome);
    for (const entry of plan.drops) {
      const removed = await this.options.memory.remove("memory", entry);
      if (removed.ok) outcome.dropped.push(entry);
      else outcome.refused.push(`drop: ${removed.error}`);
    }
    if (outcome.refused.length > 0) this.logger.info("memory curation left some changes out", { refused: outcome.refused.length });
    return outcome;
  }

  private async merge(merge: CurationPlan["merges"][number], outcome: CurationOutcome): Promise<void> {
    if (detectSecret(merge.text) !== undefined) {
      outcome.refused.push("merge: the merged entry looked like it held a secret");
      return;
    }
    if (charCount(merge.text) > merge.entries.reduce((sum, entry) => sum + charCount(entry), 0)) {
      outcome.refused.push("merge: the merged entry is longer than the entries it replaces");
      return;
    }
    const [first, ...rest] = merge.entries;
    if (first === undefined) return;
    const replaced = await this.options.memory.replace("memory", first, merge.text);
    if (!replaced.ok) {
      outcome.refused.push(`merge: ${replaced.error}`);
      return;
    }
    for (const entry of rest) {
      const removed = await this.options.memory.remove("memory", entry);
      if (!removed.ok) outcome.refused.push(`merge: ${removed.error}`);
    }
    outcome.merged.push(merge.text);
  }
}
