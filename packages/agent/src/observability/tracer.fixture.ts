import type { Tracer } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";

/** Test fixture: a real OpenTelemetry SDK tracer whose finished spans are kept in memory. */
export interface RecordingTracer {
  tracer: Tracer;
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one finished span with this name; throws when there is none or several. */
  one(name: string): ReadableSpan;
  shutdown(): Promise<void>;
}

export function recordingTracer(): RecordingTracer {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
  return {
    tracer: provider.getTracer("hermes-agent-test"),
    spans,
    one: (name) => {
      const found = spans().filter((span) => span.name === name);
      if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spans().map((s) => s.name).join(", ")}`);
      return found[0] as ReadableSpan;
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The span id of a span's parent, or undefined for a root span. */
export function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}

export function idOf(span: ReadableSpan): string {
  return span.spanContext().spanId;
}
