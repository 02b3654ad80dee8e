import { context, diag, propagation, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-node";

/** Test fixture: a globally registered SDK (context manager, W3C propagator) that keeps finished spans in memory. */
export interface GlobalSpanRecorder {
  spans(): ReadableSpan[];
  named(name: string): ReadableSpan[];
  stop(): Promise<void>;
}

export function recordSpansGlobally(): GlobalSpanRecorder {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    stop: async () => {
      await provider.shutdown();
      disableOpenTelemetryGlobals();
    },
  };
}

/** Undoes a registration, so the next test starts with the API's no-op defaults. */
export function disableOpenTelemetryGlobals(): void {
  trace.disable();
  context.disable();
  propagation.disable();
  diag.disable();
}
