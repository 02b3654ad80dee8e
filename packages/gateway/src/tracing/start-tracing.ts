import { diag, DiagLogLevel, type DiagLogger } from "@opentelemetry/api";
import type { Logger } from "@hermes/agent";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { traceSettingsFrom, type OtlpHttpProtocol } from "./trace-settings.js";

export interface TracingHandle {
  /** Whether spans are exported (an OTLP endpoint is configured and usable). */
  readonly exporting: boolean;
  /** Exports what is buffered and stops; bounded, never throws. */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  env: Record<string, string | undefined>;
  /** service.name unless OTEL_SERVICE_NAME (or service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise. */
  serviceName: string;
  logger: Logger;
  /** Upper bound for the flush at shutdown (default 5 s). */
  shutdownTimeoutMs?: number;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5_000;
const NOT_EXPORTING: TracingHandle = { exporting: false, shutdown: async () => undefined };

/**
 * Sets up OpenTelemetry trace export over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set,
 * and does nothing otherwise. The SDK is imported only then, so a process without tracing pays no start-up cost.
 * Registers the provider globally, with W3C trace-context propagation and an AsyncLocalStorage context manager.
 */
export async function startTracing(options: StartTracingOptions): Promise<TracingHandle> {
  const settings = traceSettingsFrom(options.env, options.serviceName);
  if (!settings.enabled) {
    if (settings.warning !== undefined) options.logger.warn(settings.warning);
    return NOT_EXPORTING;
  }
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources, { ATTR_SERVICE_NAME }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/semantic-conventions"),
  ]);
  const exporter = await otlpExporter(settings.protocol);
  // OTEL_RESOURCE_ATTRIBUTES (read by the env detector) may name the service too; OTEL_SERVICE_NAME wins over it.
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const detectedName = detected.attributes[ATTR_SERVICE_NAME];
  const serviceName = options.env.OTEL_SERVICE_NAME?.trim() || (typeof detectedName === "string" ? detectedName : settings.serviceName);
  const resource = resources.defaultResource().merge(detected).merge(resources.resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }));
  // BatchSpanProcessor reads OTEL_BSP_* itself; the exporter reads the endpoint, headers, timeout and compression.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  diag.setLogger(diagToLogger(options.logger), DiagLogLevel.WARN);
  options.logger.info("exporting traces over OTLP", { protocol: settings.protocol, serviceName });

  const timeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  let stopped: Promise<void> | undefined;
  return {
    exporting: true,
    shutdown: () => {
      stopped ??= withinTime(provider.shutdown(), timeoutMs).then(
        (inTime) => {
          if (!inTime) options.logger.warn("trace export did not finish at shutdown; some spans may be lost", { timeoutMs });
        },
        (error: unknown) => options.logger.warn("trace export failed at shutdown", { error: error instanceof Error ? error.message : String(error) }),
      );
      return stopped;
    },
  };
}

async function otlpExporter(protocol: OtlpHttpProtocol): Promise<SpanExporter> {
  if (protocol === "http/json") {
    const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-http");
    return new OTLPTraceExporter();
  }
  const { OTLPTraceExporter } = await import("@opentelemetry/exporter-trace-otlp-proto");
  return new OTLPTraceExporter();
}

/** OpenTelemetry reports export failures through its diag channel; operators see them in the log. */
function diagToLogger(logger: Logger): DiagLogger {
  const write = (message: string, ...args: unknown[]): void => {
    const detail = args.map(describeArgument).join(" ");
    logger.warn(`opentelemetry: ${message}`, detail === "" ? undefined : { detail });
  };
  return { error: write, warn: write, info: () => undefined, debug: () => undefined, verbose: () => undefined };
}

function describeArgument(arg: unknown): string {
  if (arg instanceof Error) return arg.message;
  if (typeof arg === "string") return arg;
  try {
    return JSON.stringify(arg) ?? String(arg);
  } catch {
    return String(arg);
  }
}

async function withinTime(work: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([work.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
