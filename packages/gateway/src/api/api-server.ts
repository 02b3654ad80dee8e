import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { PlatformAdapter } from "../core/adapter.js";
import { bearerMatches } from "../http/bearer-token.js";
import type { GatewayHttpServer } from "../http/http-server.js";
import { StreamListener } from "../streaming/stream-channel.js";
import type { StreamUpdate } from "../streaming/stream-update.js";
import { API_PLATFORM, ApiAdapter } from "./api-adapter.js";
import { chatCompletionsHandler, modelsHandler } from "./chat-completions.js";

/**
 * A request waits this long for its answer; then its run is stopped and it gets 504. Under the official OpenAI
 * clients' default timeout (10 minutes), after which they would leave (stopping the run) and send the request again.
 */
export const API_REQUEST_TIMEOUT_MS = 9 * 60_000;

/** Conversations sent along with stateless requests can be long; webhooks and callers without the key stay at the server's small limit. */
const API_MAX_BODY_BYTES = 16 * 1024 * 1024;

export interface ApiServer {
  readonly adapter: ApiAdapter;
  /** The runs' stream sink: `api` updates go to the adapter (whatever HERMES_STREAMING says), the others to `next`. */
  streamTo(next: ((update: StreamUpdate) => void) | undefined): (update: StreamUpdate) => void;
  /** `GET /v1/models` and `POST /v1/chat/completions` (answering 503 while the adapter is not started: a standby). */
  registerRoutes(http: GatewayHttpServer): void;
  /** The platform adapters with this one added. */
  withAdapter(adapters: readonly PlatformAdapter[]): PlatformAdapter[];
  /** Wraps `remakeAdapters` (a gateway elected again) so the remade list has this adapter too. */
  remaking(make: (() => Promise<PlatformAdapter[]>) | undefined): (() => Promise<PlatformAdapter[]>) | undefined;
  /**
   * The unfinished messages a gateway finds as it becomes active, less the API's, which it cancels (and stops, should a
   * worker still run one): their callers were connected to a gateway that is gone, or to this one before it stepped
   * down (answered 503 then), so running them now would answer nobody and repeat their tools' work.
   */
  withoutAbandoned<T extends { id: number; platform: string; sessionKey?: string }>(records: readonly T[]): Promise<T[]>;
}

export interface ApiServerDeps {
  store: Store;
  logger: Logger;
  stopRun: (sessionKey: string) => Promise<void>;
  timeoutMs?: number;
}

/** The OpenAI-compatible API when HERMES_API_SERVER_KEY is set; undefined otherwise. */
export function apiServerFor(config: Pick<GatewayConfig, "apiServerKey" | "redisUrl">, deps: ApiServerDeps): ApiServer | undefined {
  const key = config.apiServerKey;
  if (key === undefined) return undefined;
  const logger = deps.logger.child({ platform: API_PLATFORM });
  const redisUrl = config.redisUrl;
  // With REDIS_URL the runs happen on workers, which publish the API's stream updates whatever HERMES_STREAMING says.
  const streamSource =
    redisUrl === undefined
      ? undefined
      : (onUpdate: (update: StreamUpdate) => void) =>
          new StreamListener(redisUrl, (update) => {
            if (update.platform === API_PLATFORM) onUpdate(update);
          }, logger);
  const adapter = new ApiAdapter({ store: deps.store, stopRun: deps.stopRun, logger, ...(streamSource && { streamSource }) });
  const withAdapter = (adapters: readonly PlatformAdapter[]): PlatformAdapter[] => [...adapters.filter((other) => other.platform !== API_PLATFORM), adapter];
  return {
    adapter,
    streamTo: (next) => (update) => {
      if (update.platform === API_PLATFORM) adapter.streamed(update);
      else next?.(update);
    },
    registerRoutes(http) {
      http.route("GET", "/v1/models", modelsHandler({ key }));
      const handler = chatCompletionsHandler({ key, adapter, store: deps.store, logger, timeoutMs: deps.timeoutMs ?? API_REQUEST_TIMEOUT_MS });
      http.streamingRoute("POST", "/v1/chat/completions", handler, { bodyLimit: { maxBodyBytes: API_MAX_BODY_BYTES, grantedTo: (headers) => bearerMatches(headers.authorization, key) } });
    },
    withAdapter,
    remaking: (make) => make && (async () => withAdapter(await make())),
    async withoutAbandoned(records) {
      const abandoned = records.filter((record) => record.platform === API_PLATFORM);
      for (const record of abandoned) {
        await deps.store.inbound.setStatus(record.id, "cancelled");
        if (record.sessionKey !== undefined) await deps.stopRun(record.sessionKey);
      }
      if (abandoned.length > 0) logger.info("API requests a stopped gateway left unanswered are not run (their callers are gone)", { count: abandoned.length });
      return records.filter((record) => record.platform !== API_PLATFORM);
    },
  };
}
