import { ROOT_CONTEXT, trace, type Context, type SpanContext } from "@opentelemetry/api";

const DEFAULT_CAPACITY = 10_000;

/**
 * Which trace each recent inbound message belongs to, so the reply's delivery — later, from the outbox, perhaps after
 * the run happened on another process — joins the conversation's trace. In memory and bounded: after a restart a
 * delivery simply starts a trace of its own.
 */
export class InboundTraceIndex {
  private readonly entries = new Map<number, SpanContext>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  remember(inboundId: number, spanContext: SpanContext): void {
    if (!trace.isSpanContextValid(spanContext)) return;
    this.entries.delete(inboundId);
    this.entries.set(inboundId, spanContext);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  /** A context whose parent is the inbound's span, or the root context when it is not known here. */
  contextFor(inboundId: number | undefined): Context {
    const known = inboundId === undefined ? undefined : this.entries.get(inboundId);
    return known === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, known);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The process's index, shared by the gateway's intake and its delivery service unless they are given their own. */
export const processInboundTraces = new InboundTraceIndex();
