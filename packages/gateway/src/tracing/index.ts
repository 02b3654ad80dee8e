export { startTracing, type StartTracingOptions, type TracingHandle } from "./start-tracing.js";
export { traceSettingsFrom, type OtlpHttpProtocol, type TraceSettings } from "./trace-settings.js";
export { contextFromCarrier, currentTraceCarrier, type TraceCarrier } from "./trace-carrier.js";
export { GATEWAY_SPAN_NAMES, GATEWAY_TRACER_NAME, gatewayTracer } from "./gateway-tracer.js";
export { InboundTraceIndex, processInboundTraces } from "./inbound-trace-index.js";
