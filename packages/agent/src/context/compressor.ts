import type { Message } from "@mariozechner/pi-ai";
import type { ModelBinding } from "../loop/model-call.js";
import type { CompressMessages } from "../loop/resilient-call.js";
import { silentLogger, type Logger } from "../observability/logger.js";
import { assembleCompressed } from "./assemble.js";
import { droppedNoteMessage, readCompressionNote, summaryNoteMessage, userRequestText } from "./compression-note.js";
import { pruneToolResults, toolCallsById } from "./prune-tool-results.js";
import { selectRegions } from "./select-regions.js";
import { summarize } from "./summarize.js";
import { buildSummaryPrompt } from "./summary-prompt.js";
import { ThrashGuard, THRASHING_MESSAGE } from "./thrash-guard.js";
import { staleOutputView, staleUsageBefore, type RequestView } from "./stale-tool-results.js";
import { estimateContextTokens, estimateMessagesTokens } from "./token-estimate.js";

export type CompressionReason = "proactive" | "overflow";

export interface ContextCompressorOptions {
  /** The model that writes summaries (often a cheaper one than the conversation's). */
  summarizer: ModelBinding;
  /** Context window of the conversation's model, in tokens; a run on another model passes its own (`compressorForRun`). */
  contextWindow: number;
  /** Share of the window at which proactive compression starts. */
  threshold?: number;
  protectHeadMessages?: number;
  tailTokenBudget?: number;
  /**
   * Requests carry old tool output as one line per result (tool, arguments, size) once it is older than the recent
   * turns, with no model call and without changing the stored transcript. Default true.
   */
  pruneStaleToolResults?: boolean;
  /** User turns (the one being answered included) whose tool output requests keep in full. Default 2. */
  protectRecentTurns?: number;
  /**
   * Stale tool output is replaced in batches of about this many tokens, so the requests in between repeat each other
   * byte for byte from the start (prompt caching). Default 5 % of the context window, 1,000 to 8,000 tokens.
   */
  pruneBatchTokens?: number;
  /**
   * Stale tool output stays in requests until it adds up to this many tokens (then goes a batch at a time). Default
   * 10 % of the context window (about 50,000 characters in a 128,000-token window), at least one batch.
   */
  pruneStartTokens?: number;
  summaryMaxTokens?: number;
  summaryTimeoutMs?: number;
  logger?: Logger;
  now?: () => number;
}

export interface CompressOptions {
  reason: CompressionReason;
  sessionId: string;
  signal: AbortSignal;
  /** Context window of the model the run uses now (a /model override, the fallback); default the configured one. */
  contextWindow?: number;
  /** Last look at the messages about to be summarised (the memory providers'); a throw never stops compression. */
  onPreCompress?: (messages: readonly Message[]) => void;
}

/** What a run needs to compress its transcript: sized for the run's model, and telling its memory first. */
export interface RunCompression {
  /** The model the run uses right now (it may switch to the fallback mid-run). */
  model: () => ModelBinding;
  onPreCompress?: (messages: readonly Message[]) => void;
}

export type RunCompressor = Pick<ContextCompressor, "shouldCompress" | "compress"> & {
  /** What to send the model for this transcript (see `ContextCompressor.requestView`); absent means as it is. */
  requestView?: (messages: readonly Message[], contextWindow?: number) => Message[];
};

export interface CompressionResult {
  messages: Message[];
  summary?: string;
  savedTokens: number;
  fallback?: "dropped_middle";
}

const DEFAULT_THRESHOLD = 0.5;
const DEFAULT_HEAD_MESSAGES = 2;
const DEFAULT_TAIL_SHARE = 0.2;
const REGROW_SHARE = 0.1;
const DEFAULT_SUMMARY_TIMEOUT_MS = 120_000;
const DEFAULT_PROTECT_RECENT_TURNS = 2;
const DEFAULT_BATCH_SHARE = 0.05;
const DEFAULT_PRUNE_START_SHARE = 0.1;
/** Room in the summariser's window for its instructions and the previous summary. */
const SUMMARY_PROMPT_OVERHEAD_TOKENS = 3_000;

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high);
}

/**
 * Context compression of seed 000 §7 and seed 002 §6: prune old tool output, keep head and recent tail, summarise the
 * middle with one model call (updating the previous summary rather than summarising it), reassemble and repair.
 * Long before that is needed, every request already leaves stale tool output out (`requestView`, the cheap stage of
 * seed 003), so summaries are rare. Holds the anti-thrash state of one conversation: keep one instance per conversation.
 */
export class ContextCompressor {
  private readonly options: ContextCompressorOptions;
  private readonly threshold: number;
  private readonly protectHeadMessages: number;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly guard: ThrashGuard;
  private prunedInRequests = 0;

  constructor(options: ContextCompressorOptions) {
    if (!Number.isFinite(options.contextWindow) || options.contextWindow <= 0) {
      throw new RangeError(`contextWindow must be a positive number of tokens, got ${options.contextWindow}`);
    }
    const threshold = options.threshold ?? DEFAULT_THRESHOLD;
    if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
    const turns = options.protectRecentTurns;
    if (turns !== undefined && !(Number.isInteger(turns) && turns >= 0)) throw new RangeError(`protectRecentTurns must be a whole number ≥ 0, got ${turns}`);
    const batch = options.pruneBatchTokens;
    if (batch !== undefined && !(Number.isFinite(batch) && batch > 0)) throw new RangeError(`pruneBatchTokens must be a positive number of tokens, got ${batch}`);
    const start = options.pruneStartTokens;
    if (start !== undefined && !(Number.isFinite(start) && start >= 0)) throw new RangeError(`pruneStartTokens must be a number of tokens ≥ 0, got ${start}`);
    this.options = options;
    this.threshold = threshold;
    this.protectHeadMessages = options.protectHeadMessages ?? DEFAULT_HEAD_MESSAGES;
    this.logger = options.logger ?? silentLogger;
    this.now = options.now ?? Date.now;
    this.guard = new ThrashGuard({ regrowTokens: Math.round(options.contextWindow * REGROW_SHARE) });
  }

  /**
   * True when the context has reached the threshold of `contextWindow` (the run's model's; default the configured
   * one) and recent compressions were worth their cost.
   */
  shouldCompress(messages: readonly Message[], systemPrompt?: string, contextWindow?: number): boolean {
    const window = this.windowOf(contextWindow);
    const view = this.viewOf(messages, window);
    const usageValidAfter = staleUsageBefore(messages, view.pruned, (earlier) => this.viewOf(earlier, window).pruned);
    const tokens = estimateContextTokens(view.messages, systemPrompt, { usageValidAfter });
    if (tokens < this.threshold * window) return false;
    return this.guard.permitsProactive(estimateMessagesTokens(view.messages));
  }

  /**
   * The transcript as the model gets it: tool results older than the recent turns replaced by their one-line
   * description, a batch at a time (`staleOutputView`). The stored transcript keeps the full output.
   */
  requestView(messages: readonly Message[], contextWindow?: number): Message[] {
    const view = this.viewOf(messages, this.windowOf(contextWindow));
    // Once per batch, not per request: when the prompt cache is rebuilt is what an operator wants to see.
    if (view.pruned !== this.prunedInRequests) {
      if (view.pruned > this.prunedInRequests) this.logger.info("old tool output cleared from requests", { results: view.pruned, savedTokens: view.savedTokens });
      this.prunedInRequests = view.pruned;
    }
    return view.messages;
  }

  status(): { thrashing: boolean; message?: string } {
    return this.guard.thrashing ? { thrashing: true, message: THRASHING_MESSAGE } : { thrashing: false };
  }

  /** Forget the anti-thrash history, e.g. when the user starts over. */
  reset(): void {
    this.guard.reset();
  }

  /** A shorter transcript, or null when there is nothing to compress, it would not help, or the run was cancelled. */
  async compress(messages: readonly Message[], options: CompressOptions): Promise<CompressionResult | null> {
    const { reason, signal } = options;
    if (signal.aborted) return null;
    const window = this.windowOf(options.contextWindow);
    // Measured on what the model is sent: a summary of output already cleared from requests saves little.
    const sent = this.viewOf(messages, window).messages;
    const tokensBefore = estimateMessagesTokens(sent);
    const permitted = reason === "overflow" ? this.guard.permitsOverflow() : this.guard.permitsProactive(tokensBefore);
    if (!permitted) {
      this.logger.info("context compression skipped: recent compressions saved too little", { reason, tokens: tokensBefore });
      return null;
    }

    const tailTokenBudget = this.tailBudget(window);
    const summaryMaxTokens =
      this.options.summaryMaxTokens ?? Math.min(clamp(Math.round(window * 0.05), 512, 4_096), this.options.summarizer.model.maxTokens || 4_096);
    const regions = selectRegions(messages, { protectHeadMessages: this.protectHeadMessages, tailTokenBudget });
    if (regions.tailStart <= regions.headEnd) {
      // Over the threshold with nothing between head and tail: compression cannot help, which the guard should know.
      this.guard.record(tokensBefore, tokensBefore);
      return null;
    }
    const calls = toolCallsById(messages);
    const head = pruneToolResults(sent.slice(0, regions.headEnd), { calls }).messages;
    // The summary is written from the full output; head and tail keep what requests carried (the parent session
    // keeps the full transcript), so the child's first request is no larger than the last one before it.
    const middle = messages.slice(regions.headEnd, regions.tailStart);
    const tail = sent.slice(regions.tailStart);
    if (options.onPreCompress) this.tellPreCompress(options.onPreCompress, middle);
    const previousSummary = middle
      .map((message) => readCompressionNote(message)?.body ?? "")
      .filter((body) => body.length > 0)
      .join("\n\n");
    // The request being worked on must survive verbatim even when the summary fails.
    const latestRequest = tail.some((m) => userRequestText(m) !== undefined)
      ? undefined
      : middle.map(userRequestText).filter((text): text is string => text !== undefined).at(-1);

    const request = buildSummaryPrompt({
      middle,
      calls,
      previousSummary: previousSummary || undefined,
      maxSummaryTokens: summaryMaxTokens,
      transcriptTokenBudget: Math.max(
        2_000,
        Math.floor(this.options.summarizer.model.contextWindow * 0.8) - summaryMaxTokens - SUMMARY_PROMPT_OVERHEAD_TOKENS,
      ),
    });
    const outcome = await summarize(this.options.summarizer, request, {
      signal,
      sessionId: `${options.sessionId}:compression`,
      maxTokens: summaryMaxTokens,
      timeoutMs: this.options.summaryTimeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
      now: this.now,
    });
    // A cancelled run keeps its transcript as it was rather than losing the middle to a fallback.
    if (signal.aborted) return null;

    const timestamp = this.now();
    const replacedMessages = middle.length;
    if (!outcome.ok) {
      this.logger.warn("summary failed; dropping the middle of the conversation instead", { reason: outcome.reason, detail: outcome.detail, replacedMessages });
    } else if (outcome.truncated) {
      this.logger.warn("summary hit its token limit and may be incomplete", { maxTokens: summaryMaxTokens });
    }
    const note = outcome.ok
      ? summaryNoteMessage({ summary: outcome.summary, replacedMessages, latestRequest, timestamp })
      : droppedNoteMessage({ replacedMessages, previousSummary: previousSummary || undefined, latestRequest, timestamp });
    const assembled = assembleCompressed({ head, note, tail }, this.now);
    if (assembled.repairs.length > 0) this.logger.info("history repaired after compression", { repairs: assembled.repairs.map((r) => r.kind) });

    const tokensAfter = estimateMessagesTokens(this.viewOf(assembled.messages, window).messages);
    const { effective } = this.guard.record(tokensBefore, tokensAfter);
    if (tokensAfter >= tokensBefore) {
      this.logger.info("context compression did not shrink the conversation; keeping it", { reason, tokensBefore, tokensAfter });
      return null;
    }
    this.logger.info("context compressed", {
      reason,
      messagesBefore: messages.length,
      messagesAfter: assembled.messages.length,
      tokensBefore,
      tokensAfter,
      effective,
      fallback: outcome.ok ? undefined : "dropped_middle",
    });
    return {
      messages: assembled.messages,
      savedTokens: tokensBefore - tokensAfter,
      ...(outcome.ok ? { summary: outcome.summary } : { fallback: "dropped_middle" as const }),
    };
  }

  private tailBudget(window: number): number {
    return this.options.tailTokenBudget ?? Math.round(window * DEFAULT_TAIL_SHARE);
  }

  private viewOf(messages: readonly Message[], window: number): RequestView {
    if (this.options.pruneStaleToolResults === false) return { messages: messages.slice(), pruned: 0, savedTokens: 0 };
    const batchTokens = this.options.pruneBatchTokens ?? clamp(Math.round(window * DEFAULT_BATCH_SHARE), 1_000, 8_000);
    return staleOutputView(messages, {
      protectRecentTurns: this.options.protectRecentTurns ?? DEFAULT_PROTECT_RECENT_TURNS,
      tailTokenBudget: this.tailBudget(window),
      batchTokens,
      startTokens: this.options.pruneStartTokens ?? Math.max(batchTokens, Math.round(window * DEFAULT_PRUNE_START_SHARE)),
    });
  }

  private windowOf(contextWindow: number | undefined): number {
    return contextWindow !== undefined && Number.isFinite(contextWindow) && contextWindow > 0 ? contextWindow : this.options.contextWindow;
  }

  /** Isolated: a memory provider that throws must not cost the conversation its compression. */
  private tellPreCompress(hook: (messages: readonly Message[]) => void, middle: readonly Message[]): void {
    try {
      hook(middle);
    } catch (error) {
      this.logger.warn("pre-compression hook failed; compressing anyway", { error });
    }
  }
}

/** A conversation's compressor sized for a run's current model, telling the run's memory before it summarises. */
export function compressorForRun(compressor: RunCompressor, run: RunCompression): RunCompressor {
  return {
    shouldCompress: (messages, systemPrompt) => compressor.shouldCompress(messages, systemPrompt, run.model().model.contextWindow),
    compress: (messages, options) => compressor.compress(messages, { contextWindow: run.model().model.contextWindow, onPreCompress: run.onPreCompress, ...options }),
    requestView: (messages) => compressor.requestView?.(messages, run.model().model.contextWindow) ?? messages.slice(),
  };
}

/** Adapter to the loop's overflow hook (`HermesAgentConfig.compress` / `LoopDeps.compress`). */
export function asCompressMessages(compressor: RunCompressor, sessionId: string): CompressMessages {
  return async (messages, info) => (await compressor.compress(messages, { reason: info.reason, sessionId, signal: info.signal }))?.messages ?? null;
}
