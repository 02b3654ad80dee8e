import { startPostgres } from "../support/postgres-server.js";
import { QUICK } from "./bench-words.js";
import { startBenchDeployment } from "./bench-deployment.js";
import type { BenchFigure } from "./gateway-bench.js";

const BURST = QUICK ? 60 : 200;
const USERS = QUICK ? 30 : 100;
/** A model that takes this long per answer makes the workers' run slots the bottleneck, not the machine. */
const REPLY_DELAY_MS = 500;
/** Run slots per worker process (HERMES_WORKERS). */
const SLOTS = 2;
const WORKER_COUNTS = QUICK ? [1, 2] : [1, 2, 4];
const MAX_WAIT_MS = 120_000;

let nextMark = 3_000_000;

/**
 * The scaling curve on PostgreSQL: the gateway and N workers, each with an empty HERMES_HOME of its own (as on
 * separate machines), sharing one PostgreSQL database and Redis; a burst of DMs answered by a model that takes half a
 * second per answer. Throughput should grow with the workers until the gateway's Telegram pacing (30 sends a second
 * for the bot) or this machine's cores bound it.
 */
export async function scaleOutBenchmark(): Promise<BenchFigure[]> {
  const server = await startPostgres();
  const figures: BenchFigure[] = [];
  const rates = new Map<number, number>();
  try {
    for (const workers of WORKER_COUNTS) {
      const databaseUrl = await server.createDatabase(`bench_scale_${workers}`);
      const deployment = await startBenchDeployment({ workers, databaseUrl, replyDelayMs: REPLY_DELAY_MS, env: { HERMES_WORKERS: String(SLOTS), HERMES_RATE_LIMIT: "10000" } });
      try {
        for (let i = 0; i < 3; i += 1) await deployment.say(80_000 + i, nextMark++).answered;
        const started = performance.now();
        let unanswered = 0;
        await Promise.all(
          Array.from({ length: BURST }, async (_, i) => {
            const message = deployment.say(70_000 + (i % USERS), nextMark++);
            let timer: NodeJS.Timeout | undefined;
            const at = await Promise.race([message.answered, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), MAX_WAIT_MS)))]);
            clearTimeout(timer);
            if (at === undefined) unanswered += 1;
          }),
        );
        const seconds = (performance.now() - started) / 1000;
        rates.set(workers, (BURST - unanswered) / seconds);
        figures.push({ name: `PostgreSQL burst of ${BURST}, ${workers} worker(s) × ${SLOTS} slots, 0.5 s model`, value: (BURST - unanswered) / seconds, unit: "msg/s" });
        if (unanswered > 0) figures.push({ name: `PostgreSQL burst, ${workers} worker(s): unanswered`, value: unanswered, unit: "messages", target: { max: 0 } });
      } finally {
        await deployment.stop();
      }
    }
    const one = rates.get(1);
    const most = WORKER_COUNTS.at(-1) ?? 1;
    const top = rates.get(most);
    if (one !== undefined && top !== undefined) figures.push({ name: `PostgreSQL scaling, ${most} workers vs 1`, value: top / one, unit: "×" });
    return figures;
  } finally {
    await server.stop();
  }
}
