import type { Logger } from "@hermes/agent";
import type { InboundRecord } from "@hermes/store";
import { closeRedis, openRedis } from "../queue/redis-connection.js";

export interface RedisReconnectWatch {
  close(): Promise<void>;
}

/** Calls `onReconnect` each time Redis answers again after the connection to it was lost (not on the first connect). */
export function watchRedisReconnects(redisUrl: string, onReconnect: () => void, logger: Logger): RedisReconnectWatch {
  const connection = openRedis(redisUrl, { name: "hermes-reconnect-watch", waitThroughOutages: true }, logger);
  let connectedBefore = false;
  connection.on("ready", () => {
    if (connectedBefore) onReconnect();
    connectedBefore = true;
  });
  return { close: () => closeRedis(connection) };
}

export interface ResumeOpenRunsDeps {
  unfinished(limit: number): Promise<InboundRecord[]>;
  /** The platforms this process runs: another process answers for the rest. */
  runsPlatform(platform: string): boolean;
  /** Enqueues each record's run again (the gateway's recovery, which goes through the relay). */
  resume(records: InboundRecord[]): Promise<void>;
  logger: Logger;
}

/**
 * A Redis restarted without its data (no persistence, a replaced container) has forgotten the jobs of messages the
 * store still holds as queued or running, and nothing else would ever run them. Enqueueing them again is harmless when
 * the jobs survived: a job's id is its message's, so a duplicate is not added, and a run finds its message answered.
 */
export async function resumeOpenRuns(deps: ResumeOpenRunsDeps): Promise<void> {
  try {
    const open = (await deps.unfinished(10_000)).filter((record) => (record.status === "queued" || record.status === "running") && deps.runsPlatform(record.platform));
    if (open.length === 0) return;
    deps.logger.info("redis answers again: enqueueing open messages again in case it lost their jobs", { count: open.length });
    await deps.resume(open);
  } catch (error) {
    deps.logger.error("could not enqueue open messages again after redis came back", { error });
  }
}
