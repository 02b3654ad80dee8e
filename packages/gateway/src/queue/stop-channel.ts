import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { closeRedis, openRedis } from "./redis-connection.js";

/** Redis pub/sub channel on which the gateway asks every worker to stop a session's runs. */
export const STOP_CHANNEL = "hermes:stop";

export async function publishStop(redis: Redis, sessionKey: string): Promise<void> {
  await redis.publish(STOP_CHANNEL, JSON.stringify({ sessionKey }));
}

/** The session key of a stop message, or undefined for anything malformed (any Redis client can publish here). */
export function parseStopMessage(raw: string): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof message !== "object" || message === null) return undefined;
  const sessionKey: unknown = Reflect.get(message, "sessionKey");
  return typeof sessionKey === "string" && sessionKey.length > 0 ? sessionKey : undefined;
}

/** Listens for stop requests on its own connection (a subscribed connection can do nothing else). */
export class StopListener {
  /** Resolves once the subscription is active: stops published before that are not heard. */
  readonly ready: Promise<void>;
  private readonly subscriber: Redis;

  constructor(redisUrl: string, onStop: (sessionKey: string) => void, logger: Logger) {
    this.subscriber = openRedis(redisUrl, { name: "hermes-stop-listener", waitThroughOutages: true }, logger);
    this.subscriber.on("message", (channel: string, raw: string) => {
      if (channel !== STOP_CHANNEL) return;
      const sessionKey = parseStopMessage(raw);
      if (sessionKey === undefined) {
        logger.warn("ignored malformed stop message", { length: raw.length });
        return;
      }
      onStop(sessionKey);
    });
    this.ready = this.subscriber.subscribe(STOP_CHANNEL).then(() => undefined);
    // Closing before the subscription completes rejects `ready`; that is only news to someone awaiting it.
    this.ready.catch(() => undefined);
  }

  close(): Promise<void> {
    return closeRedis(this.subscriber);
  }
}
