import type { Logger, MetricsRegistry } from "@hermes/agent";
import type { GatewayConfig } from "../config/gateway-config.js";
import { createTranscriber } from "./transcriber.js";
import { createVoiceMessages, voiceTranscriptionsMetric, type VoiceMessages } from "./voice-messages.js";

/**
 * The gateway's voice step. It runs there, not on the workers: the gateway has the file the adapter saved, and the
 * saved message then holds the transcript for whoever runs it.
 */
export function gatewayVoiceMessages(config: Pick<GatewayConfig, "speechToText" | "paths">, logger: Logger, metrics: MetricsRegistry): VoiceMessages {
  return createVoiceMessages({
    transcriber: config.speechToText && createTranscriber({ settings: config.speechToText }),
    workspace: config.paths.workspace,
    logger,
    transcriptions: voiceTranscriptionsMetric(metrics),
  });
}
