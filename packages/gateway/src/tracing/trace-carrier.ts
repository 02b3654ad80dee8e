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
