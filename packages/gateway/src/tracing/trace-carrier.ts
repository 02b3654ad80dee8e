import { context, propagation, ROOT_CONTEXT, type Context } from "@opentelemetry/api";

/** The W3C trace context of a piece of work that crosses a queue (traceparent and tracestate headers). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** The active span's context as a carrier; empty when tracing is off or no span is active. */
export function currentTraceCarrier(active: Context = context.active()): TraceCarrier {
  const headers: Record<string, string> = {};
  propagation.inject(active, headers);
  const carrier: TraceCarrier = {};
  if (headers.traceparent !== undefined) carrier.traceparent = headers.traceparent;
  if (headers.tracestate !== undefined) carrier.tracestate = headers.tracestate;
  return carrier;
}

/** The context to start a consumer's span in: the producer's span as remote parent, or a fresh trace without one. */
export function contextFromCarrier(carrier: TraceCarrier): Context {
  if (carrier.traceparent === undefined) return ROOT_CONTEXT;
  const headers: Record<string, string> = { traceparent: carrier.traceparent };
  if (carrier.tracestate !== undefined) headers.tracestate = carrier.tracestate;
  return propagation.extract(ROOT_CONTEXT, headers);
}

const TRACEPARENT = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-[\da-f]{2}$/;
// The W3C limit; a longer one is not passed on by propagators anyway.
const MAX_TRACESTATE = 512;

/**
 * A carrier read back from storage, kept only when it has the W3C shape: a damaged or hand-edited row must start a
 * trace of its own, never break the run or delivery it belongs to.
 */
export function storedTraceCarrier(stored: { traceparent?: unknown; tracestate?: unknown } | undefined): TraceCarrier {
  const traceparent = stored?.traceparent;
  if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return {};
  const tracestate = stored?.tracestate;
  return typeof tracestate === "string" && tracestate.length <= MAX_TRACESTATE ? { traceparent, tracestate } : { traceparent };
}
