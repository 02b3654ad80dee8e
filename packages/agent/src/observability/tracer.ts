import { randomBytes } from "node:crypto";

/** In-process tracing: one trace per agent run, spans for LLM calls, tool executions and compression. */
export type AttributeValue = string | number | boolean;

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeMs: number;
  endTimeMs?: number;
  durationMs?: number;
  status: "ok" | "error" | "unset";
  error?: string;
  attributes: Record<string, AttributeValue>;
}

export interface Span {
  readonly spanId: string;
  readonly traceId: string;
  setAttribute(key: string, value: AttributeValue): void;
  setAttributes(values: Record<string, AttributeValue | undefined>): void;
  recordError(error: unknown): void;
  startChild(name: string, attributes?: Record<string, AttributeValue>): Span;
  /** Idempotent; status becomes "ok" unless an error was recorded. */
  end(): void;
}

export interface TraceRecord {
  traceId: string;
  name: string;
  startTimeMs: number;
  endTimeMs: number;
  durationMs: number;
  /** Root first, then in start order. */
  spans: SpanRecord[];
}

export interface Trace {
  readonly traceId: string;
  readonly root: Span;
  /** Starts a child of the root span. */
  startSpan(name: string, attributes?: Record<string, AttributeValue>): Span;
  /** Ends every unended span; idempotent (later calls return the same record). */
  end(): TraceRecord;
}

export interface Tracer {
  startTrace(name: string, attributes?: Record<string, AttributeValue>): Trace;
}

export interface TracerOptions {
  now?: () => number;
  newId?: () => string;
  onTraceEnd?: (trace: TraceRecord) => void;
  /** Spans beyond this (root included) are counted in the root attribute "dropped_spans", not stored. */
  maxSpansPerTrace?: number;
}

export const DEFAULT_MAX_SPANS_PER_TRACE = 1000;
export const DROPPED_SPANS_ATTRIBUTE = "dropped_spans";
export const MAX_ERROR_MESSAGE_LENGTH = 500;

type SpanAttributes = Record<string, AttributeValue | undefined> | undefined;

interface TraceContext {
  now: () => number;
  newTraceId: () => string;
  newSpanId: () => string;
}

export function createTracer(options: TracerOptions = {}): Tracer {
  const validId = (id: unknown): boolean => typeof id === "string" && id.length > 0;
  const context: TraceContext = {
    now: guarded(options.now, (t) => typeof t === "number" && Number.isFinite(t), Date.now),
    newTraceId: guarded(options.newId, validId, () => randomBytes(16).toString("hex")),
    newSpanId: guarded(options.newId, validId, () => randomBytes(8).toString("hex")),
  };
  const maxSpans = normalizeSpanCap(options.maxSpansPerTrace);
  const onTraceEnd = options.onTraceEnd;
  return {
    startTrace: (name, attributes) => openTrace(String(name), attributes, context, maxSpans, onTraceEnd),
  };
}

function openTrace(
  name: string,
  attributes: Record<string, AttributeValue> | undefined,
  context: TraceContext,
  maxSpans: number,
  onTraceEnd: ((trace: TraceRecord) => void) | undefined,
): Trace {
  const traceId = context.newTraceId();
  const records: SpanRecord[] = [];
  let dropped = 0;
  let finished: TraceRecord | undefined;

  const createSpan = (spanName: string, parentSpanId: string | undefined, attrs: SpanAttributes): Span => {
    const record: SpanRecord = {
      traceId,
      spanId: context.newSpanId(),
      ...(parentSpanId === undefined ? {} : { parentSpanId }),
      name: String(spanName),
      startTimeMs: context.now(),
      status: "unset",
      attributes: {},
    };
    const span = liveSpan(record, context.now, (childName, childAttrs) =>
      createSpan(childName, record.spanId, childAttrs),
    );
    // An unstored span still works for its caller; its record is simply never exported.
    if (finished === undefined && records.length < maxSpans) {
      records.push(record);
      if (attrs !== undefined) span.setAttributes(attrs);
    } else if (finished === undefined) {
      dropped += 1;
      const root = records[0];
      if (root !== undefined) root.attributes[DROPPED_SPANS_ATTRIBUTE] = dropped;
    }
    return span;
  };

  const root = createSpan(name, undefined, attributes);

  const end = (): TraceRecord => {
    if (finished !== undefined) return finished;
    const endTimeMs = context.now();
    for (const record of records) {
      if (record.endTimeMs === undefined) closeRecord(record, endTimeMs);
    }
    const startTimeMs = records[0]?.startTimeMs ?? endTimeMs;
    finished = {
      traceId,
      name,
      startTimeMs,
      endTimeMs,
      durationMs: Math.max(0, endTimeMs - startTimeMs),
      spans: records.map((record) => ({ ...record, attributes: { ...record.attributes } })),
    };
    exportQuietly(onTraceEnd, finished);
    return finished;
  };

  return {
    traceId,
    root,
    startSpan: (spanName, attrs) => createSpan(spanName, root.spanId, attrs),
    end,
  };
}

function liveSpan(
  record: SpanRecord,
  now: () => number,
  startChild: (name: string, attributes: SpanAttributes) => Span,
): Span {
  const open = (): boolean => record.endTimeMs === undefined;
  const setAttribute = (key: string, value: unknown): void => {
    if (open() && typeof key === "string" && isAttributeValue(value)) record.attributes[key] = value;
  };
  return {
    spanId: record.spanId,
    traceId: record.traceId,
    setAttribute,
    setAttributes(values) {
      if (values === null || typeof values !== "object") return;
      try {
        for (const [key, value] of Object.entries(values)) setAttribute(key, value);
      } catch {
        // A hostile getter must not break the run being traced.
      }
    },
    recordError(error) {
      if (!open()) return;
      record.status = "error";
      // The first error is usually the cause; later ones tend to be its fallout.
      record.error ??= describeError(error);
    },
    startChild: (name, attributes) => startChild(name, attributes),
    end() {
      if (open()) closeRecord(record, now());
    },
  };
}

function closeRecord(record: SpanRecord, endTimeMs: number): void {
  record.endTimeMs = endTimeMs;
  record.durationMs = Math.max(0, endTimeMs - record.startTimeMs);
  if (record.status === "unset") record.status = "ok";
}

function isAttributeValue(value: unknown): value is AttributeValue {
  if (typeof value === "number") return Number.isFinite(value);
  return typeof value === "string" || typeof value === "boolean";
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
  return truncate(text, MAX_ERROR_MESSAGE_LENGTH);
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const code = text.charCodeAt(cut - 1);
  // Never leave half of a surrogate pair before the ellipsis.
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return text.slice(0, cut) + "…";
}

function exportQuietly(onTraceEnd: ((trace: TraceRecord) => void) | undefined, trace: TraceRecord): void {
  if (onTraceEnd === undefined) return;
  try {
    const result: unknown = onTraceEnd(trace);
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // Exporters are best effort; a broken one must never fail the agent run.
  }
}

/** Wraps an injected source so a throwing or nonsensical one falls back to the built-in default. */
function guarded<T>(source: (() => T) | undefined, valid: (value: unknown) => boolean, fallback: () => T): () => T {
  if (source === undefined) return fallback;
  return () => {
    try {
      const value = source();
      if (valid(value)) return value;
    } catch {
      // Fall through to the default.
    }
    return fallback();
  };
}

function normalizeSpanCap(value: number | undefined): number {
  if (typeof value !== "number" || Number.isNaN(value)) return DEFAULT_MAX_SPANS_PER_TRACE;
  return Math.max(1, Math.floor(value));
}

const noopSpan: Span = {
  spanId: "",
  traceId: "",
  setAttribute: () => {},
  setAttributes: () => {},
  recordError: () => {},
  startChild: () => noopSpan,
  end: () => {},
};

/** Records nothing; the default when an embedding app does not want tracing. */
export const noopTracer: Tracer = {
  startTrace(name) {
    const record: TraceRecord = { traceId: "", name: String(name), startTimeMs: 0, endTimeMs: 0, durationMs: 0, spans: [] };
    return { traceId: "", root: noopSpan, startSpan: () => noopSpan, end: () => record };
  },
};
