import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { ioredis } from "./load-ioredis.js";

export interface OpenRedisOptions {
  /** Why the connection exists, for logs and `CLIENT LIST`. */
  name: string;
  /** BullMQ workers and subscribers wait out outages instead of failing commands (`maxRetriesPerRequest: null`). */
  waitThroughOutages?: boolean;
  /**
   * Commands fail at once while Redis is unreachable (no offline queue, one retry of a command cut off mid-flight),
   * for callers that must not hang behind an outage: the gateway's enqueue hands such messages to its relay.
   */
  failFast?: boolean;
}

/** An ioredis connection whose errors are logged (ioredis otherwise prints unhandled error events itself). */
export function openRedis(url: string, options: OpenRedisOptions, logger: Logger): Redis {
  const { Redis } = ioredis();
  const redis = options.waitThroughOutages
    ? new Redis(url, { connectionName: options.name, maxRetriesPerRequest: null })
    : options.failFast
      ? new Redis(url, { connectionName: options.name, enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 200, 2_000) })
      : new Redis(url, { connectionName: options.name });
  // Once per outage, not once per reconnect attempt (every 2 s while Redis is away).
  let down = false;
  redis.on("error", (error: unknown) => {
    if (down) return logger.debug("redis connection error", { connection: options.name, error });
    down = true;
    logger.warn("redis connection error", { connection: options.name, error });
  });
  redis.on("ready", () => {
    if (down) logger.info("redis connection back", { connection: options.name });
    down = false;
  });
  return redis;
}

/** Quits politely; a connection that is already broken is just dropped. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "end") return;
  if (redis.status !== "ready") {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}
