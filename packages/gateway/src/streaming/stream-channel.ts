import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { closeRedis, openRedis } from "../queue/redis-connection.js";
import { parseStreamUpdate, type StreamUpdate } from "./stream-update.js";

/** Redis pub/sub channel on which workers publish the replies they are writing, for the active gateway to show. */
export const STREAM_CHANNEL = "hermes:stream";

export async function publishStreamUpdate(redis: Redis, update: StreamUpdate): Promise<void> {
  await redis.publish(STREAM_CHANNEL, JSON.stringify(update));
}

/** The update a stream message carries, or undefined for anything malformed (any Redis client can publish here). */
export function parseStreamMessage(raw: string): StreamUpdate | undefined {
  try {
    return parseStreamUpdate(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

/** Listens for stream updates on its own connection (a subscribed connection can do nothing else). */
export class StreamListener {
  /** Resolves once the subscription is active: updates published before that are not heard. */
  readonly ready: Promise<void>;
  private readonly subscriber: Redis;

  constructor(redisUrl: string, onUpdate: (update: StreamUpdate) => void, logger: Logger) {
    this.subscriber = openRedis(redisUrl, { name: "hermes-stream-listener", waitThroughOutages: true }, logger);
    this.subscriber.on("message", (channel: string, raw: string) => {
      if (channel !== STREAM_CHANNEL) return;
      const update = parseStreamMessage(raw);
      if (update === undefined) {
        logger.warn("ignored malformed stream update", { length: raw.length });
        return;
      }
      onUpdate(update);
    });
    this.ready = this.subscriber.subscribe(STREAM_CHANNEL).then(() => undefined);
    // Closing before the subscription completes rejects `ready`; that is only news to someone awaiting it.
    this.ready.catch(() => undefined);
  }

  close(): Promise<void> {
    return closeRedis(this.subscriber);
  }
}
