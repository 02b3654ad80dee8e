import { context as contexts, SpanStatusCode, trace, type Attributes, type Context, type Span, type SpanOptions, type Tracer } from "@opentelemetry/api";

/**
 * Tracing through the OpenTelemetry API only: without a registered SDK every span is a no-op, and the process that
 * embeds the agent decides whether and where spans are exported (the agent core has no exporter of its own).
 */
export const AGENT_TRACER_NAME = "hermes-agent";
export const AGENT_TRACER_VERSION = "0.1.0";
export const MAX_STATUS_MESSAGE_LENGTH = 500;

/** The tracer the agent uses when none is injected; it follows whatever provider is registered globally, even later. */
export function defaultAgentTracer(): Tracer {
  return trace.getTracer(AGENT_TRACER_NAME, AGENT_TRACER_VERSION);
}

/** Where new spans hang: the tracer, and the context whose span is their parent. */
export interface SpanScope {
  readonly tracer: Tracer;
  readonly context: Context;
}

export interface StartedSpan {
  readonly span: Span;
  /** The scope for this span's own children. */
  readonly scope: SpanScope;
}

/** Starts a span as a child of the scope's span, explicitly, so nesting holds even with concurrent work and no context manager. */
export function startChildSpan(scope: SpanScope, name: string, options: SpanOptions = {}): StartedSpan {
  const span = scope.tracer.startSpan(name, options, scope.context);
  return { span, scope: { tracer: scope.tracer, context: trace.setSpan(scope.context, span) } };
}

/** Runs `work` with the span's context active, so anything it traces (HTTP clients, nested agents) nests under it. */
export function withActiveScope<T>(scope: SpanScope, work: () => T): T {
  return contexts.with(scope.context, work);
}

/**
 * Runs `work` in a child span that ends when it settles; a throw marks the span failed (error.type = the error's name)
 * and is rethrown.
 */
export async function inChildSpan<T>(
  scope: SpanScope,
  name: string,
  options: SpanOptions,
  work: (span: Span, scope: SpanScope) => Promise<T>,
): Promise<T> {
  const started = startChildSpan(scope, name, options);
  try {
    return await withActiveScope(started.scope, () => work(started.span, started.scope));
  } catch (error) {
    markFailed(started.span, error instanceof Error ? error.name : "exception", error);
    throw error;
  } finally {
    started.span.end();
  }
}

/**
 * Marks a span failed the way OpenTelemetry's conventions expect: `error.type` names the class of failure (low
 * cardinality) and the status carries a short description. Callers pass descriptions that hold no message text.
 */
export function markFailed(span: Span, errorType: string, description?: unknown): void {
  span.setAttribute("error.type", errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: description === undefined ? errorType : describeError(description) });
}

/** Sets only the attributes that have a value (OpenTelemetry drops undefined ones, but say so here once). */
export function setDefinedAttributes(span: Span, attributes: Record<string, Attributes[string]>): void {
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) span.setAttribute(key, value);
}

/** The trace id of a span that is really recorded; undefined for the no-op spans of an unconfigured process. */
export function recordedTraceId(span: Span): string | undefined {
  const spanContext = span.spanContext();
  return trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** A short, bounded message for any thrown value. */
export function describeError(error: unknown): string {
  let text: string;
  try {
    if (typeof error === "string") text = error;
    else if (error instanceof Error) text = error.message || error.name;
    else if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
      text = error.message;
    } else text = String(error);
  } catch {
    text = "unprintable error";
  }
  return truncate(text, MAX_STATUS_MESSAGE_LENGTH);
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  // Never leave half of a surrogate pair before the ellipsis.
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + "…";
}
