import type { Logger } from "@hermes/agent";
import { ROOT_CONTEXT, SpanKind, type Context } from "@opentelemetry/api";
import { GATEWAY_SPAN_NAMES, gatewayTracer, markSpanFailed } from "../tracing/gateway-tracer.js";
import { contextFromCarrier, storedTraceCarrier } from "../tracing/trace-carrier.js";
import type { OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import { forEachConcurrently, groupByChat } from "./chat-lanes.js";
import { chunkMarkdown } from "./chunk-markdown.js";
import type { DeliveryOutcome, DeliveryRecordLike, DeliveryStoreLike, FlushSummary, InboundTraceStoreLike } from "./delivery-types.js";
import { failureNoticeText, shortFailureReason } from "./failure-notice.js";
import { callSend, sendChunk, type RetryPolicy } from "./send-chunk.js";

export interface DeliveryServiceOptions {
  store: DeliveryStoreLike;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  logger: Logger;
  /** Sends per chunk while the platform fails with retryable errors (default 4). */
  maxAttempts?: number;
  /** Flushes a delivery may fail with retryable errors before it is given up (default 5). */
  maxDeliveryAttempts?: number;
  /** Pause between retries (default: a real timer). */
  sleep?: (ms: number) => Promise<void>;
  /** In [0, 1), for backoff jitter (default Math.random). */
  random?: () => number;
  /** Runs `callback` after `ms`; returns a cancel function (default: an unref'd setTimeout). */
  schedule?: (callback: () => void, ms: number) => () => void;
  /** Deliveries taken from the store per batch (default 100). */
  batchSize?: number;
  /** Chats served at the same time (default 4); one chat's deliveries always go out one after another. */
  chatConcurrency?: number;
  onDelivered?: (delivery: DeliveryRecordLike, outcome: DeliveryOutcome) => void;
  /** The inbound messages, whose saved trace context each reply's delivery joins; without it each starts its own. */
  inbound?: InboundTraceStoreLike;
}

type Attempt = DeliveryOutcome | "pending";

interface Failure {
  error: string;
  retryable: boolean;
  /** What the chat is told when the cause is not the platform's answer. */
  userReason?: string;
}

// A store that never empties (a bug) must not keep one flush running forever.
const MAX_BATCHES_PER_FLUSH = 10;

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const realSchedule = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Sends pending deliveries through the platform adapters: chunked to each platform's limit, formatted, retried, and
 * announced in the chat when a reply is lost. Flushes never overlap, so nothing is sent twice.
 */
export class DeliveryService {
  private readonly retry: RetryPolicy;
  private readonly maxDeliveryAttempts: number;
  private readonly batchSize: number;
  private readonly chatConcurrency: number;
  private readonly schedule: (callback: () => void, ms: number) => () => void;
  /** Chunks already sent per delivery, so a retried delivery resumes where it stopped. */
  private readonly progress = new Map<number, number>();
  private running: Promise<FlushSummary> | null = null;
  private queued: Promise<FlushSummary> | null = null;
  private polling = false;
  private cancelPoll: (() => void) | null = null;

  constructor(private readonly options: DeliveryServiceOptions) {
    this.retry = { maxAttempts: Math.max(1, options.maxAttempts ?? 4), sleep: options.sleep ?? realSleep, random: options.random ?? Math.random };
    this.maxDeliveryAttempts = Math.max(1, options.maxDeliveryAttempts ?? 5);
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.chatConcurrency = Math.max(1, options.chatConcurrency ?? 4);
    this.schedule = options.schedule ?? realSchedule;
  }

  /** Sends what is pending now. A call during a flush waits for it and then runs one more, shared by all who wait. */
  flush(): Promise<FlushSummary> {
    // The queued flush is checked first: between one flush settling and the next starting, `running` is already null.
    if (this.queued) return this.queued;
    if (!this.running) return (this.running = this.runFlush());
    const next = (): Promise<FlushSummary> => {
      this.queued = null;
      return (this.running = this.runFlush());
    };
    return (this.queued = this.running.then(next, next));
  }

  /** Flushes now and then every `pollMs` after the previous flush ends. */
  start(pollMs = 1000): void {
    if (this.polling) return;
    this.polling = true;
    const tick = (): void => {
      this.cancelPoll = null;
      const again = (): void => {
        if (this.polling) this.cancelPoll = this.schedule(tick, pollMs);
      };
      this.flush().then(again, (error: unknown) => {
        this.options.logger.error("delivery flush failed", { error });
        again();
      });
    };
    tick();
  }

  /** Stops polling and waits for a flush in progress (and one queued behind it) to finish. */
  async stop(): Promise<void> {
    this.polling = false;
    this.cancelPoll?.();
    this.cancelPoll = null;
    await (this.queued ?? this.running)?.catch(() => undefined);
  }

  private runFlush(): Promise<FlushSummary> {
    const flush = this.flushBatches().finally(() => {
      if (this.running === flush) this.running = null;
    });
    return flush;
  }

  private async flushBatches(): Promise<FlushSummary> {
    const summary: FlushSummary = { sent: 0, failed: 0 };
    for (let batch = 0; batch < MAX_BATCHES_PER_FLUSH; batch += 1) {
      let deliveries: DeliveryRecordLike[];
      try {
        deliveries = await this.options.store.pending(this.batchSize);
      } catch (error) {
        this.options.logger.error("could not read pending deliveries", { error });
        break;
      }
      let leftPending = false;
      const lanes = groupByChat([...deliveries].sort((a, b) => a.id - b.id));
      await forEachConcurrently(lanes, this.chatConcurrency, async (lane) => {
        for (const delivery of lane) {
          const attempt = await this.deliverSafely(delivery);
          if (attempt === "sent") summary.sent += 1;
          if (attempt === "failed") summary.failed += 1;
          // Later messages to this chat wait, so the chat never sees them out of order.
          if (attempt === "pending") {
            leftPending = true;
            return;
          }
        }
      });
      if (deliveries.length < this.batchSize || leftPending) break;
    }
    return summary;
  }

  /**
   * Each attempt is a span in the trace of the message it answers, read from the message's row: a reply goes out
   * later, maybe after the run happened in another process or after a restart.
   */
  private async deliverSafely(delivery: DeliveryRecordLike): Promise<Attempt> {
    const attributes = {
      "messaging.system": delivery.platform,
      "messaging.operation.type": "send",
      "hermes.delivery.id": delivery.id,
      "hermes.delivery.kind": delivery.kind,
      "hermes.delivery.attempt": delivery.attempts + 1,
      ...(delivery.inboundId === undefined ? {} : { "hermes.inbound_id": delivery.inboundId }),
    };
    const parent = await this.traceOfInbound(delivery);
    return gatewayTracer().startActiveSpan(GATEWAY_SPAN_NAMES.send(delivery.platform), { kind: SpanKind.PRODUCER, attributes }, parent, async (span) => {
      try {
        const attempt = await this.deliverGuarded(delivery);
        span.setAttribute("hermes.delivery.outcome", attempt);
        if (attempt === "failed") markSpanFailed(span, "delivery_failed", "the platform did not take the reply");
        return attempt;
      } finally {
        span.end();
      }
    });
  }

  private async traceOfInbound(delivery: DeliveryRecordLike): Promise<Context> {
    if (delivery.inboundId === undefined || this.options.inbound === undefined) return ROOT_CONTEXT;
    try {
      return contextFromCarrier(storedTraceCarrier((await this.options.inbound.get(delivery.inboundId))?.traceContext));
    } catch (error) {
      // Tracing is never a reason not to deliver.
      this.options.logger.warn("could not read the trace context of a reply's message", { deliveryId: delivery.id, inboundId: delivery.inboundId, error });
      return ROOT_CONTEXT;
    }
  }

  /** A bug while handling one delivery (say an adapter with an invalid text limit) must not stall the others. */
  private async deliverGuarded(delivery: DeliveryRecordLike): Promise<Attempt> {
    try {
      return await this.deliver(delivery);
    } catch (error) {
      this.options.logger.error("delivery crashed", { deliveryId: delivery.id, platform: delivery.platform, error });
      const reason = `internal error: ${error instanceof Error ? error.message : String(error)}`;
      const adapter = this.options.adapters.get(delivery.platform) ?? null;
      return this.fail(delivery, { error: reason, retryable: false, userReason: "an internal error" }, adapter, 0);
    }
  }

  private async deliver(delivery: DeliveryRecordLike): Promise<Attempt> {
    const adapter = this.options.adapters.get(delivery.platform);
    if (!adapter) return this.fail(delivery, { error: `no adapter is running for platform "${delivery.platform}"`, retryable: false }, null, 0);
    const chunks = chunkMarkdown(delivery.text, adapter.textLimit);
    if (chunks.length === 0) return this.fail(delivery, { error: "the text is empty", retryable: false, userReason: "it was empty" }, adapter, 0);

    for (let index = this.progress.get(delivery.id) ?? 0; index < chunks.length; index += 1) {
      // Only the first message of a reply quotes the message it answers.
      const target = this.targetFor(delivery, index === 0);
      const result = await sendChunk(adapter, target, chunks[index] ?? "", this.retry, this.options.logger);
      if (!result.ok) {
        const where = chunks.length > 1 ? `part ${index + 1} of ${chunks.length}: ` : "";
        const userReason = shortFailureReason(result.error, result.retryable);
        return this.fail(delivery, { error: where + result.error, retryable: result.retryable, userReason }, adapter, index);
      }
      this.progress.set(delivery.id, index + 1);
    }
    try {
      await this.options.store.markSent(delivery.id);
    } catch (error) {
      // Progress is kept, so the next flush only marks it sent instead of sending it again.
      this.options.logger.error("could not mark a delivery sent", { deliveryId: delivery.id, error });
      return "pending";
    }
    this.progress.delete(delivery.id);
    this.options.logger.debug("delivered", { deliveryId: delivery.id, platform: delivery.platform, chatId: delivery.chatId, chunks: chunks.length });
    this.report(delivery, "sent");
    return "sent";
  }

  private targetFor(delivery: DeliveryRecordLike, quoting: boolean): OutboundTarget {
    const target: OutboundTarget = { chatId: delivery.chatId };
    if (delivery.threadId !== undefined) target.threadId = delivery.threadId;
    if (quoting && delivery.replyToMessageId !== undefined) target.replyToMessageId = delivery.replyToMessageId;
    return target;
  }

  private async fail(
    delivery: DeliveryRecordLike,
    failure: Failure,
    adapter: PlatformAdapter | null,
    chunksSent: number,
  ): Promise<Attempt> {
    const final = !failure.retryable || delivery.attempts + 1 >= this.maxDeliveryAttempts;
    const fields = { deliveryId: delivery.id, platform: delivery.platform, chatId: delivery.chatId, kind: delivery.kind, attempts: delivery.attempts + 1, error: failure.error };
    try {
      await this.options.store.recordFailure(delivery.id, failure.error, final);
    } catch (error) {
      this.options.logger.error("could not record a delivery failure", { ...fields, storeError: error });
      return "pending";
    }
    if (!final) {
      this.options.logger.warn("delivery failed; it will be retried", fields);
      return "pending";
    }
    this.progress.delete(delivery.id);
    this.options.logger.error("delivery failed", fields);
    if (delivery.kind === "reply" && adapter) await this.sendFailureNotice(adapter, delivery, failure, chunksSent > 0);
    this.report(delivery, "failed");
    return "failed";
  }

  /** Tells the chat its reply was lost — one plain-text attempt, since the platform just failed us. */
  private async sendFailureNotice(
    adapter: PlatformAdapter,
    delivery: DeliveryRecordLike,
    failure: Failure,
    partlyDelivered: boolean,
  ): Promise<void> {
    const reason = failure.userReason ?? shortFailureReason(failure.error, failure.retryable);
    const text = failureNoticeText(reason, partlyDelivered);
    const result: SendResult = await callSend(adapter, this.targetFor(delivery, false), { text, format: "plain" });
    if (!result.ok) this.options.logger.warn("could not send the failure notice", { deliveryId: delivery.id, error: result.error });
  }

  private report(delivery: DeliveryRecordLike, outcome: DeliveryOutcome): void {
    try {
      this.options.onDelivered?.(delivery, outcome);
    } catch (error) {
      this.options.logger.error("onDelivered callback threw", { deliveryId: delivery.id, error });
    }
  }
}
