import { afterEach, describe, expect, it, vi } from "vitest";
import { trace } from "@opentelemetry/api";
import { silentLogger, type LogLevel, type Logger } from "@hermes/agent";
import { startOtlpCollector, type OtlpCollector } from "../../../../test/fakes/otlp-collector.js";
import { disableOpenTelemetryGlobals, recordSpansGlobally, type GlobalSpanRecorder } from "./span-recorder.fixture.js";
import { startTracing } from "./start-tracing.js";
import { contextFromCarrier, currentTraceCarrier, storedTraceCarrier } from "./trace-carrier.js";
import { traceSettingsFrom } from "./trace-settings.js";

let collector: OtlpCollector | undefined;
let recorder: GlobalSpanRecorder | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await recorder?.stop();
  recorder = undefined;
  disableOpenTelemetryGlobals();
  await collector?.close();
  collector = undefined;
});

function recordingLogger(lines: Array<{ level: LogLevel; message: string }>): Logger {
  const logger: Logger = {
    debug: (message) => void lines.push({ level: "debug", message }),
    info: (message) => void lines.push({ level: "info", message }),
    warn: (message) => void lines.push({ level: "warn", message }),
    error: (message) => void lines.push({ level: "error", message }),
    child: () => logger,
  };
  return logger;
}

describe("trace settings from OTEL_* variables", () => {
  it("exports only with an endpoint, in http/protobuf unless told http/json, named by OTEL_SERVICE_NAME", () => {
    expect(traceSettingsFrom({}, "hermes-gateway")).toEqual({ enabled: false });
    expect(traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" }, "hermes-gateway")).toEqual({ enabled: true, protocol: "http/protobuf", serviceName: "hermes-gateway" });
    expect(traceSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "bot" }, "hermes-worker"))
      .toEqual({ enabled: true, protocol: "http/json", serviceName: "bot" });
    // The traces-specific protocol wins over the general one.
    expect(traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "x", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" }, "s")).toMatchObject({ protocol: "http/protobuf" });
    expect(traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "x", OTEL_SDK_DISABLED: "true" }, "s")).toEqual({ enabled: false });
    expect(traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "x", OTEL_TRACES_EXPORTER: "none" }, "s")).toEqual({ enabled: false });
  });

  it("refuses gRPC with a warning instead of exporting nowhere silently", () => {
    const settings = traceSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "s");
    expect(settings.enabled).toBe(false);
    expect(settings.enabled === false && settings.warning).toMatch(/"grpc" is not supported/);
  });
});

describe("startTracing", () => {
  it("does nothing without an endpoint: spans stay no-ops", async () => {
    const handle = await startTracing({ env: {}, serviceName: "hermes-gateway", logger: silentLogger });
    expect(handle.exporting).toBe(false);
    const span = trace.getTracer("t").startSpan("s");
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
    await handle.shutdown();
  });

  it("logs a warning and exports nothing for an unsupported protocol", async () => {
    const lines: Array<{ level: LogLevel; message: string }> = [];
    const handle = await startTracing({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, serviceName: "s", logger: recordingLogger(lines) });
    expect(handle.exporting).toBe(false);
    expect(lines).toContainEqual({ level: "warn", message: expect.stringContaining("grpc") });
  });

  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`exports nested spans with service.name over OTLP ${protocol} and flushes them at shutdown`, async () => {
      collector = await startOtlpCollector();
      // The exporters read the standard variables from the process environment themselves.
      vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.url);
      vi.stubEnv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol);
      vi.stubEnv("OTEL_BSP_SCHEDULE_DELAY", "60000");
      const handle = await startTracing({ env: process.env, serviceName: "hermes-test", logger: silentLogger });
      expect(handle.exporting).toBe(true);
      const tracer = trace.getTracer("unit");
      tracer.startActiveSpan("outer", (outer) => {
        tracer.startSpan("inner", { attributes: { answer: 42, flag: true, tags: ["a", "b"] } }).end();
        outer.end();
      });
      await handle.shutdown();

      const spans = collector.spans();
      expect(collector.requests.map((request) => request.encoding)).toEqual([protocol === "http/json" ? "json" : "protobuf"]);
      const outer = spans.find((span) => span.name === "outer");
      const inner = spans.find((span) => span.name === "inner");
      expect(outer?.parentSpanId).toBeUndefined();
      expect(inner?.parentSpanId).toBe(outer?.spanId);
      expect(inner?.traceId).toBe(outer?.traceId);
      expect(inner?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(inner).toMatchObject({ serviceName: "hermes-test", scope: "unit", attributes: { answer: 42, flag: true, tags: ["a", "b"] } });
    });
  }
});

describe("trace context across a queue", () => {
  it("carries the active span as a W3C traceparent and makes it the parent on the other side", () => {
    recorder = recordSpansGlobally();
    const tracer = trace.getTracer("unit");
    const carrier = tracer.startActiveSpan("producer", (span) => {
      const injected = currentTraceCarrier();
      span.end();
      return injected;
    });
    expect(carrier.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    tracer.startSpan("consumer", {}, contextFromCarrier(carrier)).end();
    const [producer, consumer] = recorder.spans();
    expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
    expect(consumer?.spanContext().traceId).toBe(producer?.spanContext().traceId);
  });

  it("has nothing to carry without tracing, and starts a fresh trace from an empty carrier", () => {
    expect(currentTraceCarrier()).toEqual({});
    expect(trace.getSpanContext(contextFromCarrier({}))).toBeUndefined();
  });
});

describe("a trace context read back from storage", () => {
  const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  it("is kept when it has the W3C shape and becomes the parent of the span started from it", () => {
    recorder = recordSpansGlobally();
    expect(storedTraceCarrier({ traceparent, tracestate: "vendor=abc" })).toEqual({ traceparent, tracestate: "vendor=abc" });
    expect(storedTraceCarrier({ traceparent })).toEqual({ traceparent });
    const parent = trace.getSpanContext(contextFromCarrier(storedTraceCarrier({ traceparent })));
    expect(parent).toMatchObject({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", isRemote: true });
  });

  it("is ignored when damaged, so the work starts a trace of its own instead of failing", () => {
    recorder = recordSpansGlobally();
    for (const damaged of [undefined, {}, { traceparent: 42 }, { traceparent: "" }, { traceparent: "00-zz-b7ad6b7169203331-01" }, { traceparent: `${traceparent} ` }, { traceparent: traceparent.toUpperCase() }]) {
      expect(storedTraceCarrier(damaged)).toEqual({});
      expect(trace.getSpanContext(contextFromCarrier(storedTraceCarrier(damaged)))).toBeUndefined();
    }
    // A tracestate beyond the W3C limit is dropped; the trace is still joined.
    expect(storedTraceCarrier({ traceparent, tracestate: "k=" + "v".repeat(600) })).toEqual({ traceparent });
    expect(storedTraceCarrier({ traceparent, tracestate: 7 })).toEqual({ traceparent });
    // The right shape with an all-zero trace id is refused by the W3C propagator itself.
    expect(trace.getSpanContext(contextFromCarrier(storedTraceCarrier({ traceparent: "00-00000000000000000000000000000000-b7ad6b7169203331-01" })))).toBeUndefined();
  });
});
