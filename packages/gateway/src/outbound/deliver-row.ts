import type { Logger } from "@hermes/agent";
import type { OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import { chunkMarkdown } from "./chunk-markdown.js";
import { canEdit, editingInPlace } from "../streaming/edit-in-place.js";
import { EMPTY_PART, statusRoom } from "../streaming/stream-layout.js";
import type { DeliveryRecordLike, DeliveryStoreLike, StreamedRepliesLike } from "./delivery-types.js";
import { failureNoticeText, shortFailureReason } from "./failure-notice.js";
import type { SendPacer } from "./pacer-types.js";
import { pacedSend, sendChunk, type PartSend, type RetryPolicy } from "./send-chunk.js";

/**
 * What became of one claimed delivery: "pending" (retried later), "deferred" (waits out a rate limit, not counted as
 * an attempt), "lost" (another process holds it now; this one stopped sending it).
 */
export type DeliveryAttempt = "sent" | "failed" | "pending" | "deferred" | "lost";

/** Everything sent, but the sent mark could not be written: the service marks it again without sending. */
export type RowResult = { attempt: DeliveryAttempt } | { attempt: "unsettled"; partsSent: number };

export interface DeliveryRules {
  owner: string;
  store: DeliveryStoreLike;
  logger: Logger;
  pacer: SendPacer;
  retry: RetryPolicy;
  maxDeliveryAttempts: number;
  maxDeliveryAgeMs: number;
  leaseMs: number;
  now: () => number;
  /** When a delivery that failed `attempts` times before is due again. */
  retryAt: (attempts: number) => number;
  /** Aborted when the service stops: pacer waits end and nothing more is sent. */
  signal: AbortSignal;
  /** Streamed replies, whose messages a reply's delivery edits into the final answer; without it every part is sent. */
  streams?: StreamedRepliesLike;
}

interface Failure {
  error: string;
  retryable: boolean;
  /** What the chat is told when the cause is not the platform's answer. */
  userReason?: string;
}

const FIRST_RETRY_MS = 10_000;
const MAX_RETRY_MS = 10 * 60_000;

/**
 * The pause before a failed delivery's next attempt: 10 s, 30 s, 90 s, 4.5 min, … (±25%, at most 10 min). Each attempt
 * already retried in place for seconds, so the attempts between them span minutes: a platform or network outage of a
 * minute or two must not use them all up and lose every reply written meanwhile.
 */
export function deliveryRetryDelayMs(failedBefore: number, random: () => number): number {
  const pause = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 3 ** Math.max(0, failedBefore));
  return Math.round(Math.min(MAX_RETRY_MS, pause * (0.75 + 0.5 * random())));
}

/** The key a part keeps on every attempt and after a restart, so a platform that deduplicates shows it once. */
export function partIdempotencyKey(deliveryId: number, part: number): string {
  return `d${deliveryId}p${part}`;
}

/** Sends the parts of a claimed delivery from `partsSent` on, recording each, then marks it sent (or its failure). */
export async function sendDelivery(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, partsSent: number): Promise<RowResult> {
  const lease = keepClaimed(rules, delivery.id);
  try {
    return await sendParts(rules, adapter, delivery, partsSent, () => lease.lost);
  } catch (error) {
    // A bug while handling one delivery (say an adapter with an invalid text limit) must not stall the others.
    rules.logger.error("delivery crashed", { deliveryId: delivery.id, platform: delivery.platform, error });
    const reason = `internal error: ${error instanceof Error ? error.message : String(error)}`;
    return fail(rules, adapter, delivery, { error: reason, retryable: false, userReason: "an internal error" }, partsSent);
  } finally {
    lease.stop();
  }
}

async function sendParts(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, partsSent: number, claimLost: () => boolean): Promise<RowResult> {
  if (chunkMarkdown(delivery.text, adapter.textLimit).length === 0) return fail(rules, adapter, delivery, { error: "the text is empty", retryable: false, userReason: "it was empty" }, 0);
  // A notice of a run (an approval prompt) goes below what the run streamed, and the rest of the stream below it.
  if (delivery.kind === "notice" && delivery.inboundId !== undefined) await cutStream(rules, delivery.inboundId);
  const streamed = await streamedMessages(rules, adapter, delivery);
  if (!streamed.ok) return fail(rules, adapter, delivery, { error: streamed.error, retryable: true, userReason: "its streamed messages could not be read" }, partsSent);
  const chunks = finalParts(delivery.text, adapter.textLimit, streamed.ids.length);
  // Parts below `editable` replace the text of a streamed message; the others are sent. A streamed message that cannot
  // be edited (deleted) ends the editing: that part and the rest go out as new messages.
  let editable = streamed.ids.length;
  let leftoverFrom = chunks.length;
  for (let index = Math.min(partsSent, chunks.length); index < chunks.length; index += 1) {
    if (claimLost()) return lost(rules, delivery);
    const part = partSend(rules, delivery, index, index === chunks.length - 1);
    const messageId = index < editable ? streamed.ids[index] : undefined;
    let result = messageId === undefined ? undefined : await editPart(rules, adapter, delivery, messageId, chunks[index] ?? "", part);
    if (result && !result.ok && !result.retryable && !rules.signal.aborted) {
      rules.logger.warn("could not edit a streamed message; the rest of the reply goes out as new messages", { deliveryId: delivery.id, part: index + 1, error: result.error });
      editable = index;
      leftoverFrom = index + 1;
      result = undefined;
    }
    // Only the first message of a reply quotes the message it answers.
    result ??= await sendChunk(adapter, targetFor(delivery, index === 0), chunks[index] ?? "", rules.retry, part, rules.logger);
    if (!result.ok) {
      if (rules.signal.aborted) return { attempt: "pending" };
      const where = chunks.length > 1 ? `part ${index + 1} of ${chunks.length}: ` : "";
      if (result.retryAfterMs !== undefined) return deferRateLimited(rules, adapter, delivery, where + result.error, result.retryAfterMs, index);
      const userReason = shortFailureReason(result.error, result.retryable);
      return fail(rules, adapter, delivery, { error: where + result.error, retryable: result.retryable, userReason }, index);
    }
    if (index + 1 < chunks.length && !(await recordPart(rules, delivery, index + 1))) return lost(rules, delivery);
  }
  await blankLeftovers(rules, adapter, delivery, streamed.ids.slice(leftoverFrom));
  try {
    if (!(await rules.store.markSent(delivery.id, rules.owner))) return lost(rules, delivery);
  } catch (error) {
    rules.logger.error("could not mark a delivery sent", { deliveryId: delivery.id, error });
    return { attempt: "unsettled", partsSent: chunks.length };
  }
  if (streamed.ids.length > 0 && delivery.inboundId !== undefined) await forgetStreamed(rules, delivery.inboundId);
  rules.logger.debug("delivered", { deliveryId: delivery.id, platform: delivery.platform, chatId: delivery.chatId, chunks: chunks.length });
  return { attempt: "sent" };
}

/**
 * The reply's parts. Streamed messages kept room for a status line, so they may hold less than a full message: when
 * the full-size parts would leave streamed messages over, the reply is cut as it was streamed, and each streamed
 * message gets its own part back instead of an empty "⋯". The same inputs give the same parts on every attempt.
 */
function finalParts(text: string, limit: number, streamedCount: number): string[] {
  const full = chunkMarkdown(text, limit);
  if (streamedCount <= full.length) return full;
  return chunkMarkdown(text, Math.max(1, limit - statusRoom(limit)));
}

function partSend(rules: DeliveryRules, delivery: DeliveryRecordLike, index: number, last: boolean): PartSend {
  const part: PartSend = { pacer: rules.pacer, idempotencyKey: partIdempotencyKey(delivery.id, index + 1), signal: rules.signal };
  if (last && delivery.buttons !== undefined && delivery.buttons.length > 0) part.buttons = delivery.buttons;
  return part;
}

/** The messages the reply was streamed into: this process's stream if it showed one, else the ones recorded. */
async function streamedMessages(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike): Promise<{ ok: true; ids: string[] } | { ok: false; error: string }> {
  if (!rules.streams || delivery.kind !== "reply" || delivery.inboundId === undefined || !canEdit(adapter)) return { ok: true, ids: [] };
  try {
    const shown = await rules.streams.finish(delivery.inboundId);
    return { ok: true, ids: shown.length > 0 ? shown : await rules.streams.stored(delivery.inboundId) };
  } catch (error) {
    // Sending without them would show the answer twice: the streamed messages stay and a new copy follows.
    rules.logger.error("could not read a reply's streamed messages", { deliveryId: delivery.id, error });
    return { ok: false, error: `could not read the streamed messages: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Replaces a streamed message's text with its final part, paced and retried exactly like a send. */
function editPart(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, messageId: string, chunk: string, part: PartSend): Promise<SendResult> {
  if (!canEdit(adapter)) return Promise.resolve({ ok: false, retryable: false, error: "the adapter cannot edit messages" });
  return sendChunk(editingInPlace(adapter, messageId), targetFor(delivery, false), chunk, rules.retry, part, rules.logger);
}

/** Streamed messages the final answer does not need any more; best effort, the answer is out already. */
async function blankLeftovers(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, messageIds: string[]): Promise<void> {
  for (const [offset, messageId] of messageIds.entries()) {
    if (rules.signal.aborted) return;
    const part = { pacer: rules.pacer, idempotencyKey: `d${delivery.id}x${offset + 1}`, signal: rules.signal };
    const result = await editPart(rules, adapter, delivery, messageId, EMPTY_PART, part);
    if (result.ok) continue;
    if (result.retryAfterMs !== undefined) rules.pacer.pause(adapter.platform, delivery.chatId, Math.max(0, result.retryAfterMs));
    rules.logger.warn("could not clear a streamed message the reply no longer needs", { deliveryId: delivery.id, messageId, error: result.error });
  }
}

async function cutStream(rules: DeliveryRules, inboundId: number): Promise<void> {
  try {
    await rules.streams?.cut(inboundId);
  } catch (error) {
    rules.logger.warn("could not end a reply's streamed messages before a notice; the answer may be written above it", { inboundId, error });
  }
}

async function forgetStreamed(rules: DeliveryRules, inboundId: number): Promise<void> {
  try {
    await rules.streams?.clear(inboundId);
  } catch (error) {
    rules.logger.warn("could not forget a sent reply's streamed messages; retention removes them", { inboundId, error });
  }
}

function targetFor(delivery: DeliveryRecordLike, quoting: boolean): OutboundTarget {
  const target: OutboundTarget = { chatId: delivery.chatId };
  if (delivery.threadId !== undefined) target.threadId = delivery.threadId;
  if (quoting && delivery.replyToMessageId !== undefined) target.replyToMessageId = delivery.replyToMessageId;
  return target;
}

/** False when the claim is gone; a store error only costs a possible resend of this part after a crash. */
async function recordPart(rules: DeliveryRules, delivery: DeliveryRecordLike, partsSent: number): Promise<boolean> {
  try {
    return await rules.store.markPartSent(delivery.id, rules.owner, partsSent);
  } catch (error) {
    rules.logger.error("could not record a sent part; after a crash it may be sent again", { deliveryId: delivery.id, partsSent, error });
    return true;
  }
}

function lost(rules: DeliveryRules, delivery: DeliveryRecordLike): RowResult {
  rules.logger.warn("another process took this delivery over; this one stops sending it", { deliveryId: delivery.id, platform: delivery.platform });
  return { attempt: "lost" };
}

/** The platform asked this chat to wait: the row waits in the store, holding no sender, and the pacer holds the chat. */
async function deferRateLimited(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, error: string, retryAfterMs: number, partsSent: number): Promise<RowResult> {
  const waitMs = Math.max(0, retryAfterMs);
  rules.pacer.pause(adapter.platform, delivery.chatId, waitMs);
  const until = rules.now() + waitMs;
  if (until - delivery.createdAt > rules.maxDeliveryAgeMs) {
    return fail(rules, adapter, delivery, { error: `${error} (still rate limited after ${Math.round(rules.maxDeliveryAgeMs / 60_000)} minutes)`, retryable: false, userReason: "the chat service kept asking to wait" }, partsSent);
  }
  try {
    if (!(await rules.store.defer(delivery.id, rules.owner, until))) return lost(rules, delivery);
  } catch (storeError) {
    rules.logger.error("could not defer a rate-limited delivery", { deliveryId: delivery.id, storeError });
    return { attempt: "pending" };
  }
  rules.logger.info("rate limited; the delivery waits", { deliveryId: delivery.id, platform: delivery.platform, chatId: delivery.chatId, retryAfterMs: waitMs });
  return { attempt: "deferred" };
}

async function fail(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, failure: Failure, partsSent: number): Promise<RowResult> {
  const tooOld = rules.now() - delivery.createdAt > rules.maxDeliveryAgeMs;
  const final = !failure.retryable || tooOld || delivery.attempts + 1 >= rules.maxDeliveryAttempts;
  const retryAt = final ? undefined : rules.retryAt(delivery.attempts);
  const fields = { deliveryId: delivery.id, platform: delivery.platform, chatId: delivery.chatId, kind: delivery.kind, attempts: delivery.attempts + 1, error: failure.error };
  try {
    if (!(await rules.store.recordFailure(delivery.id, rules.owner, failure.error, { final, ...(retryAt === undefined ? {} : { retryAt }) }))) return lost(rules, delivery);
  } catch (error) {
    rules.logger.error("could not record a delivery failure", { ...fields, storeError: error });
    return { attempt: "pending" };
  }
  if (!final) {
    rules.logger.warn("delivery failed; it will be retried", { ...fields, retryAt });
    return { attempt: "pending" };
  }
  rules.logger.error("delivery failed", fields);
  if (delivery.kind === "reply") await sendFailureNotice(rules, adapter, delivery, failure, partsSent > 0);
  return { attempt: "failed" };
}

/** Tells the chat its reply was lost — one plain-text attempt, since the platform just failed us. */
async function sendFailureNotice(rules: DeliveryRules, adapter: PlatformAdapter, delivery: DeliveryRecordLike, failure: Failure, partlyDelivered: boolean): Promise<void> {
  const reason = failure.userReason ?? shortFailureReason(failure.error, failure.retryable);
  const message = { text: failureNoticeText(reason, partlyDelivered), format: "plain" as const, idempotencyKey: `d${delivery.id}n` };
  const result = await pacedSend(adapter, targetFor(delivery, false), message, { pacer: rules.pacer, signal: rules.signal });
  if (!result.ok) rules.logger.warn("could not send the failure notice", { deliveryId: delivery.id, error: result.error });
}

/** Renews the claim while a long reply goes out; `lost` turns true when another process holds it now. */
function keepClaimed(rules: DeliveryRules, id: number): { readonly lost: boolean; stop: () => void } {
  let lostClaim = false;
  const timer = setInterval(() => {
    rules.store.renewClaim(id, rules.owner, rules.leaseMs).then(
      (held) => {
        if (!held) lostClaim = true;
      },
      (error: unknown) => rules.logger.warn("could not renew a delivery claim", { deliveryId: id, error }),
    );
  }, Math.max(1, Math.floor(rules.leaseMs / 3)));
  timer.unref();
  return {
    get lost() {
      return lostClaim;
    },
    stop: () => clearInterval(timer),
  };
}
