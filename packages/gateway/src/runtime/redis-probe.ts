import type { Logger } from "@hermes/agent";
import type { Redis } from "ioredis";
import { ioredis } from "../queue/load-ioredis.js";
import { CHECK_TIMEOUT_MS, type CheckResult, type ReadinessCheck } from "./readiness.js";

/**
 * A Redis connection of its own for readiness: commands fail at once while it is down (no offline queue, no
 * per-command retries), so a probe never waits behind BullMQ's patient connections. An outage is logged once when it
 * starts and once when Redis answers again, not on every reconnect attempt.
 */
export class RedisProbe {
  private readonly redis: Redis;
  private readonly where: string;
  private lastError: string | undefined;
  private down = false;

  constructor(url: string, private readonly logger: Logger) {
    this.where = describeAddress(url);
    const { Redis } = ioredis();
    this.redis = new Redis(url, {
      connectionName: "hermes-readiness",
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // A Redis that accepts but never answers (paused, overloaded) would otherwise keep every probe's PING pending.
      commandTimeout: CHECK_TIMEOUT_MS,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    });
    this.redis.on("error", (error: Error) => {
      this.lastError = error.message;
      if (this.down) return;
      this.down = true;
      this.logger.warn("redis unreachable; readiness reports it until it answers", { redis: this.where, error: error.message });
    });
    this.redis.on("ready", () => {
      if (this.down) this.logger.info("redis reachable again", { redis: this.where });
      this.down = false;
      this.lastError = undefined;
    });
  }

  readonly check: ReadinessCheck = async (): Promise<CheckResult> => {
    if (this.redis.status !== "ready") {
      return { ok: false, detail: `${this.where} ${this.lastError ?? this.redis.status}` };
    }
    try {
      const answer = await this.redis.ping();
      return { ok: true, detail: `${this.where} answered ${answer}` };
    } catch (error) {
      return { ok: false, detail: `${this.where} ${error instanceof Error ? error.message : String(error)}` };
    }
  };

  close(): void {
    this.redis.disconnect();
  }
}

/** host:port without credentials, for logs and /readyz. */
function describeAddress(url: string): string {
  if (!URL.canParse(url)) return "redis";
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || "6379"}`;
}
