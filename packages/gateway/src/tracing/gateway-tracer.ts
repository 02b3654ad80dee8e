import { SpanStatusCode, trace, type Span, type Tracer } from "@opentelemetry/api";

export const GATEWAY_TRACER_NAME = "hermes-gateway";
export const GATEWAY_TRACER_VERSION = "0.1.0";

/**
 * Span names after OpenTelemetry's messaging conventions: a platform is the messaging system a message is received
 * from and a reply is sent to; the run between them is the gateway's own work.
 */
export const GATEWAY_SPAN_NAMES = {
  receive: (platform: string): string => `receive ${platform}`,
  run: "hermes.run",
  send: (platform: string): string => `send ${platform}`,
} as const;

/** The global provider's tracer: a no-op until startTracing registered an SDK. */
export function gatewayTracer(): Tracer {
  return trace.getTracer(GATEWAY_TRACER_NAME, GATEWAY_TRACER_VERSION);
}

const MAX_STATUS_MESSAGE = 300;

/** error.type names the class of failure; the status message is a short description without message text. */
export function markSpanFailed(span: Span, errorType: string, description?: string): void {
  span.setAttribute("error.type", errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (description ?? errorType).slice(0, MAX_STATUS_MESSAGE) });
}

export function errorTypeOf(error: unknown): string {
  return error instanceof Error ? error.name : "exception";
}

export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
