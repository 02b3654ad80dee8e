import type { Logger } from "@hermes/agent";
import { ROOT_CONTEXT, SpanKind, type Context } from "@opentelemetry/api";
import { GATEWAY_SPAN_NAMES, gatewayTracer, markSpanFailed } from "../tracing/gateway-tracer.js";
import { contextFromCarrier, storedTraceCarrier } from "../tracing/trace-carrier.js";
import type { DeliveryAttempt } from "./deliver-row.js";
import type { DeliveryRecordLike, InboundTraceStoreLike } from "./delivery-types.js";

/**
 * Runs one delivery attempt as a span in the trace of the message it answers, read from the message's row: a reply
 * goes out later, maybe after the run happened in another process or after a restart.
 */
export async function tracedDeliveryAttempt(
  delivery: DeliveryRecordLike,
  partsSent: number,
  context: { inbound?: InboundTraceStoreLike; logger: Logger },
  attempt: () => Promise<DeliveryAttempt>,
): Promise<DeliveryAttempt> {
  const attributes = {
    "messaging.system": delivery.platform,
    "messaging.operation.type": "send",
    "hermes.delivery.id": delivery.id,
    "hermes.delivery.kind": delivery.kind,
    "hermes.delivery.attempt": delivery.attempts + 1,
    ...(partsSent > 0 ? { "hermes.delivery.parts_sent": partsSent } : {}),
    ...(delivery.inboundId === undefined ? {} : { "hermes.inbound_id": delivery.inboundId }),
  };
  const parent = await traceOfInbound(delivery, context);
  return gatewayTracer().startActiveSpan(GATEWAY_SPAN_NAMES.send(delivery.platform), { kind: SpanKind.PRODUCER, attributes }, parent, async (span) => {
    try {
      const outcome = await attempt();
      span.setAttribute("hermes.delivery.outcome", outcome);
      if (outcome === "failed") markSpanFailed(span, "delivery_failed", "the platform did not take the reply");
      return outcome;
    } finally {
      span.end();
    }
  });
}

async function traceOfInbound(delivery: DeliveryRecordLike, context: { inbound?: InboundTraceStoreLike; logger: Logger }): Promise<Context> {
  if (delivery.inboundId === undefined || context.inbound === undefined) return ROOT_CONTEXT;
  try {
    return contextFromCarrier(storedTraceCarrier((await context.inbound.get(delivery.inboundId))?.traceContext));
  } catch (error) {
    // Tracing is never a reason not to deliver.
    context.logger.warn("could not read the trace context of a reply's message", { deliveryId: delivery.id, inboundId: delivery.inboundId, error });
    return ROOT_CONTEXT;
  }
}
