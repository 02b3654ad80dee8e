import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { PlatformAdapter } from "../core/adapter.js";
import type { StreamedRepliesLike } from "../outbound/delivery-types.js";
import type { SendPacer } from "../outbound/pacer-types.js";
import { StreamListener } from "../streaming/stream-channel.js";
import { StreamPresenter } from "../streaming/stream-presenter.js";
import type { StreamUpdate } from "../streaming/stream-update.js";

export interface GatewayStreaming {
  /** Where this process's own runs (the inline queue) hand their updates. */
  sink(update: StreamUpdate): void;
  /** Starts showing streams, once the adapters and the pacer exist; returns what the delivery service needs. */
  start(deps: { store: Pick<Store, "streamParts">; adapters: ReadonlyMap<string, PlatformAdapter>; pacer: SendPacer; isActive: () => boolean }): StreamedRepliesLike;
  close(): Promise<void>;
}

/**
 * HERMES_STREAMING=edit on the gateway: runs in this process hand their updates to the presenter directly, workers'
 * arrive on Redis. Only the active gateway shows them (a standby sends nothing); the final reply, from the outbox,
 * replaces what was shown. Undefined when streaming is off.
 */
export function gatewayStreaming(config: Pick<GatewayConfig, "interaction" | "redisUrl">, logger: Logger): GatewayStreaming | undefined {
  if (config.interaction.streaming !== "edit") return undefined;
  let presenter: StreamPresenter | undefined;
  let listener: StreamListener | undefined;
  let isActive = (): boolean => false;
  // Ends the presenter's waits for the pacer at shutdown (a chat paused for a long retry_after would hold it).
  const stopping = new AbortController();
  const sink = (update: StreamUpdate): void => {
    if (isActive()) presenter?.update(update);
  };
  return {
    sink,
    start(deps) {
      isActive = deps.isActive;
      const shown = new StreamPresenter({
        adapterFor: (platform) => deps.adapters.get(platform),
        pacer: deps.pacer,
        parts: deps.store.streamParts,
        logger,
        signal: stopping.signal,
        // A gateway that lost its duty mid-stream must not edit over the final reply the active one sends.
        showing: () => isActive(),
      });
      presenter = shown;
      if (config.redisUrl) listener = new StreamListener(config.redisUrl, sink, logger);
      return {
        finish: (inboundId) => shown.finish(inboundId),
        stored: (inboundId) => deps.store.streamParts.list(inboundId),
        cut: (inboundId) => shown.cut(inboundId),
        clear: (inboundId) => {
          shown.release(inboundId);
          return deps.store.streamParts.clear(inboundId);
        },
      };
    },
    async close() {
      stopping.abort(new Error("the gateway is stopping"));
      await listener?.close();
      await presenter?.stop();
    },
  };
}
