import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startFakeTelegram, type FakeTelegram, type SentMessage } from "../fakes/telegram/index.js";
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from "../fakes/llm-server.js";
import { startApp, type AppProcess } from "../support/app-process.js";
import { startRedis, type TestRedis } from "../support/redis-server.js";

const TOKEN = "123456:BENCH-deployment";
const MARK = /\bm(\d+)x\b/;

/**
 * What `npm start` (and `npm run worker` beside it) run, as child processes on the stand-in Telegram and the scripted
 * model, which answers at once with a reply naming the message it answers ("answer m<n>x"), so the benchmark knows
 * every message got its own real answer. Everything on 127.0.0.1.
 */
export interface BenchDeployment {
  telegram: FakeTelegram;
  llm: LlmServer;
  gateway: AppProcess;
  workers: AppProcess[];
  /** A user writes message number `n` in their DM; resolves with the answer's arrival time (performance.now()). */
  say(userId: number, n: number): { sentAt: number; answered: Promise<number> };
  /** Messages the bot sent that answer no message of ours (errors, notices, busy acknowledgements). */
  otherReplies(): SentMessage[];
  /** User + system CPU time of the gateway and worker processes so far, in ms (from /proc). */
  cpuMs(): number;
  /** Resident set size of each process now, in bytes. */
  rssBytes(): number[];
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  /** Worker processes on a private redis-server; 0 = embedded (inline queue). */
  workers: number;
  env?: Record<string, string>;
  /** Extra environment for the gateway process only (e.g. NODE_OPTIONS for a CPU profile). */
  gatewayEnv?: Record<string, string>;
  /** A redis-server to use (and leave running) instead of a private one, e.g. to compare with a bare queue on it. */
  redis?: TestRedis;
  /**
   * The PostgreSQL store (HERMES_DATABASE_URL): each process then gets an empty HERMES_HOME of its own, as on
   * separate machines.
   */
  databaseUrl?: string;
  /** How long the scripted model takes to write each answer (two chunks, this far apart); default at once. */
  replyDelayMs?: number;
}

function answererWith(delayMs: number): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    const text = JSON.stringify(request.messages.at(-1) ?? "");
    const mark = MARK.exec(text)?.[1];
    const answer = mark === undefined ? "answer without a mark" : `answer m${mark}x`;
    return delayMs > 0 ? { kind: "text", text: answer, chunks: 2, delayMsBetweenChunks: delayMs } : { kind: "text", text: answer, chunks: 1 };
  };
}

export async function startBenchDeployment(options: DeploymentOptions): Promise<BenchDeployment> {
  const home = await mkdtemp(path.join(os.tmpdir(), "hermes-bench-deploy-"));
  const telegram = await startFakeTelegram({ token: TOKEN });
  const llm = await startLlmServer({ defaultReply: answererWith(options.replyDelayMs ?? 0) });
  let redis: TestRedis | undefined;
  const apps: AppProcess[] = [];
  const waiting = new Map<string, (at: number) => void>();
  const others: SentMessage[] = [];
  // The fake keeps what the bot sent in an array; hearing each push gives the arrival time without polling.
  const sent = telegram.sent as SentMessage[];
  const push = sent.push.bind(sent);
  sent.push = (...items: SentMessage[]): number => {
    const at = performance.now();
    for (const item of items) {
      const mark = MARK.exec(item.visible)?.[1];
      const resolve = mark === undefined ? undefined : waiting.get(mark);
      if (resolve) {
        waiting.delete(mark ?? "");
        resolve(at);
      } else others.push(item);
    }
    return push(...items);
  };
  try {
    if (options.workers > 0) redis = options.redis ?? (await startRedis());
    const ownRedis = options.redis === undefined;
    const env: Record<string, string> = {
      HOME: home,
      HERMES_HOME: path.join(home, "state"),
      HERMES_BASE_URL: llm.baseUrl,
      HERMES_MODEL: "scripted-model",
      HERMES_API_KEY: "bench-key",
      // A free port: the default 8642 may be taken by a gateway that is really running on this machine.
      HERMES_HTTP_PORT: "0",
      HERMES_ALLOWED_USERS: "telegram:*",
      HERMES_REFLECTION: "off",
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      ...(redis ? { REDIS_URL: redis.url } : {}),
      ...(options.databaseUrl !== undefined && { HERMES_DATABASE_URL: options.databaseUrl }),
      ...options.env,
    };
    const ownHome = (name: string): Record<string, string> =>
      options.databaseUrl === undefined ? {} : { HERMES_HOME: path.join(home, name) };
    for (let i = 0; i < options.workers; i += 1) {
      const worker = startApp("worker", { ...env, ...ownHome(`worker-${i}`) });
      apps.push(worker);
      await worker.waitFor("worker started", 30_000);
    }
    const gateway = startApp("gateway", { ...env, ...ownHome("gateway"), ...options.gatewayEnv });
    apps.unshift(gateway);
    await gateway.waitFor("gateway started", 30_000);
    await telegram.waitForHeldPoll();
    const procStat = (pid: number | undefined): number => {
      if (pid === undefined) return 0;
      try {
        // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per second).
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        return ((Number(fields[11]) || 0) + (Number(fields[12]) || 0)) * 10;
      } catch {
        return 0;
      }
    };
    const procRss = (pid: number | undefined): number => {
      if (pid === undefined) return 0;
      try {
        const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
        return Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) * 1024;
      } catch {
        return 0;
      }
    };
    return {
      telegram,
      llm,
      gateway,
      workers: apps.slice(1),
      say(userId, n) {
        const answered = new Promise<number>((resolve) => waiting.set(String(n), resolve));
        const sentAt = performance.now();
        telegram.userWrites({ from: { id: userId, first_name: `User${userId}` }, text: `Please look at item m${n}x and tell me about it.` });
        return { sentAt, answered };
      },
      otherReplies: () => others,
      cpuMs: () => apps.reduce((total, app) => total + procStat(app.child.pid), 0),
      rssBytes: () => apps.map((app) => procRss(app.child.pid)),
      stop: async () => {
        for (const app of apps) app.kill("SIGTERM");
        await Promise.race([Promise.all(apps.map((app) => app.exited)), new Promise((resolve) => setTimeout(resolve, 10_000))]);
        for (const app of apps) app.kill("SIGKILL");
        await Promise.all(apps.map((app) => app.exited));
        await telegram.close();
        await llm.close();
        if (ownRedis) await redis?.stop();
        await rm(home, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const app of apps) app.kill("SIGKILL");
    await Promise.all(apps.map((app) => app.exited));
    await telegram.close();
    await llm.close();
    if (options.redis === undefined) await redis?.stop();
    await rm(home, { recursive: true, force: true });
    throw error;
  }
}
