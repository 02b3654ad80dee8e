import type { Redis } from "ioredis";
import { ioredis } from "../queue/load-ioredis.js";
import { fail, ok, type ProbeResult } from "./probe-result.js";

/** `PING` on REDIS_URL. Only host and port are ever shown: the URL may hold a password. */
export async function probeRedis(url: string, options: { timeoutMs: number }): Promise<ProbeResult> {
  const target = hostAndPort(url);
  const { Redis } = ioredis();
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: options.timeoutMs, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  let firstError: Error | undefined;
  redis.on("error", (error: Error) => (firstError ??= error));
  // connectTimeout ends at the TCP handshake: a listener that accepts and then stays silent would hold the ready
  // check or PING forever, so the whole exchange has one deadline.
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => resolve(fail(`cannot reach Redis at ${target}: no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
  });
  try {
    return await Promise.race([ping(redis, target, () => firstError), deadline]);
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}

async function ping(redis: Redis, target: string, firstError: () => Error | undefined): Promise<ProbeResult> {
  try {
    await redis.connect();
    const pong = await redis.ping();
    return pong === "PONG" ? ok(`${target} answers PING`) : fail(`${target} answered PING with ${JSON.stringify(pong)}`);
  } catch (error) {
    const reason = firstError() ?? (error instanceof Error ? error : new Error(String(error)));
    const code = (reason as Error & { code?: string }).code;
    const message = code && !reason.message.includes(code) ? `${code} ${reason.message}` : reason.message;
    return fail(`cannot reach Redis at ${target}: ${message}`);
  }
}

function hostAndPort(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || "127.0.0.1"}:${parsed.port || "6379"}`;
  } catch {
    return "(an invalid REDIS_URL)";
  }
}
