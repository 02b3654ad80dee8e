import type { Message, ToolCall, ToolResultMessage } from "@mariozechner/pi-ai";
import { latestCompressionTime, userRequestText } from "./compression-note.js";
import { DEFAULT_PRUNE_MIN_CHARS, describeToolResult, prunedResult, toolCallsById, worthPruning } from "./prune-tool-results.js";
import { estimateMessageTokens, promptTokensOf } from "./token-estimate.js";

export interface StaleOutputOptions {
  /** Tool output of this many most recent user turns (the one being answered included) is sent as it came. */
  protectRecentTurns: number;
  /** ... but of no more recent messages than fit in this many tokens; the newest step's results always stay. */
  tailTokenBudget: number;
  /**
   * Stale output goes in batches of this many tokens saved: between two batches every request starts with the
   * previous one byte for byte, which is what a provider's prompt cache can reuse.
   */
  batchTokens: number;
  /**
   * Nothing is cleared before the stale output adds up to this many tokens: a chat that read a few files asks about
   * them again without the model having to read them again, and re-sending them costs little. Default one batch.
   */
  startTokens?: number;
  /** Results this short stay: their description would cost about as much. */
  minChars?: number;
}

export interface RequestView {
  /** What to send: `messages` with the stale results replaced (untouched messages are the same objects). */
  messages: Message[];
  /** Results replaced in this view. */
  pruned: number;
  /** Estimated tokens the replacements save. */
  savedTokens: number;
}

// Every model step looks at the whole transcript again; messages are never changed in place, so what was worked out
// for one stays true, and a long transcript costs its character scan once per run instead of several times a step.
const tokenMemo = new WeakMap<Message, number>();
const standInMemo = new WeakMap<ToolResultMessage, { minChars: number; standIn: ToolResultMessage; saving: number } | { minChars: number; standIn?: undefined }>();

function tokensOf(message: Message): number {
  let tokens = tokenMemo.get(message);
  if (tokens === undefined) {
    tokens = estimateMessageTokens(message);
    tokenMemo.set(message, tokens);
  }
  return tokens;
}

/** The result's one-line stand-in and what it saves, or nothing when the result is not worth replacing. */
function standInFor(result: ToolResultMessage, calls: Map<string, ToolCall>, minChars: number): { standIn: ToolResultMessage; saving: number } | undefined {
  const known = standInMemo.get(result);
  if (known && known.minChars === minChars) return known.standIn ? known : undefined;
  let entry: { minChars: number; standIn: ToolResultMessage; saving: number } | undefined;
  if (worthPruning(result, minChars)) {
    const standIn = prunedResult(result, describeToolResult(result, calls.get(result.toolCallId)));
    const saving = tokensOf(result) - estimateMessageTokens(standIn);
    if (saving > 0) entry = { minChars, standIn, saving };
  }
  standInMemo.set(result, entry ?? { minChars });
  return entry;
}

/**
 * Where the protected recent part starts: the `protectRecentTurns`-th newest user request, or later when what follows
 * it passes `tailTokenBudget` (one long run of tool calls must not keep all of its output forever).
 */
export function protectedStart(messages: readonly Message[], options: Pick<StaleOutputOptions, "protectRecentTurns" | "tailTokenBudget">): number {
  let turnStart = 0;
  let turns = 0;
  for (let i = messages.length - 1; i >= 0 && turns < options.protectRecentTurns; i -= 1) {
    if (userRequestText(messages[i] as Message) === undefined) continue;
    turns += 1;
    if (turns === options.protectRecentTurns) turnStart = i;
  }
  let lastAssistant = messages.length - 1;
  while (lastAssistant >= 0 && messages[lastAssistant]?.role !== "assistant") lastAssistant -= 1;
  const alwaysKept = lastAssistant + 1;
  let budgetStart = messages.length;
  let used = 0;
  while (budgetStart > 0) {
    const cost = tokensOf(messages[budgetStart - 1] as Message);
    if (budgetStart <= alwaysKept && used + cost > options.tailTokenBudget) break;
    used += cost;
    budgetStart -= 1;
  }
  return Math.max(turnStart, budgetStart);
}

/**
 * The request view of a transcript: tool results older than the protected recent part become their one-line
 * description (tool, arguments, size), with no model call. The stored transcript is not changed.
 *
 * Batching is a pure function of the transcript, so it holds across runs, restarts and workers: each prunable
 * result has a fixed position on the running total of what pruning saves, counted from the start of the transcript.
 * With `stale` the total of the results before the protected part, a result is replaced when its position lies below
 * `floor(stale / batchTokens) * batchTokens`. That line moves only when the stale total crosses a multiple of the
 * batch, and then jumps a whole batch; what stays unreplaced before the protected part is always under one batch,
 * once the stale total has reached `startTokens`.
 */
export function staleOutputView(messages: readonly Message[], options: StaleOutputOptions): RequestView {
  const minChars = options.minChars ?? DEFAULT_PRUNE_MIN_CHARS;
  const batch = Math.max(1, options.batchTokens);
  const end = protectedStart(messages, options);
  const calls = toolCallsById(messages.slice(0, end));
  const candidates: Array<{ index: number; position: number; message: ToolResultMessage; saving: number }> = [];
  let stale = 0;
  for (let index = 0; index < end; index += 1) {
    const message = messages[index] as Message;
    if (message.role !== "toolResult") continue;
    const found = standInFor(message, calls, minChars);
    if (!found) continue;
    candidates.push({ index, position: stale, message: found.standIn, saving: found.saving });
    stale += found.saving;
  }
  // `stale` only grows with the transcript, so once clearing has started it never stops again (no flapping).
  const line = stale < (options.startTokens ?? 0) ? 0 : Math.floor(stale / batch) * batch;
  const out = messages.slice();
  let pruned = 0;
  let savedTokens = 0;
  for (const candidate of candidates) {
    if (candidate.position >= line) break;
    savedTokens += candidate.saving;
    out[candidate.index] = candidate.message;
    pruned += 1;
  }
  return { messages: out, pruned, savedTokens };
}

/**
 * The `usageValidAfter` time for estimating the next request (`estimateContextTokens`). A reply's usage counts the
 * request it answered, the view of the messages before it; when a batch was cleared since (`prunedIn` of those
 * messages differs from `prunedNow`), the next request is smaller than that count and the estimate starts from the
 * messages instead. A compression makes every earlier count stale as well.
 */
export function staleUsageBefore(messages: readonly Message[], prunedNow: number, prunedIn: (earlier: readonly Message[]) => number): number | undefined {
  const compressedAt = latestCompressionTime(messages);
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as Message;
    if (message.role !== "assistant") continue;
    if (compressedAt !== undefined && message.timestamp <= compressedAt) return compressedAt;
    if (promptTokensOf(message) <= 0) continue;
    return prunedIn(messages.slice(0, i)) === prunedNow ? compressedAt : message.timestamp;
  }
  return compressedAt;
}
