/**
 * `npm run worker` for crash tests, run from the TypeScript sources in a child process: the real run processor,
 * agent pool, hooks and store on BullMQ, but with short job locks, stall checks and session leases so that a run
 * whose worker was SIGKILLed is taken over in a few seconds instead of the production 15–30.
 * Environment: the usual HERMES_* settings and REDIS_URL, plus WORKER_LOCK_MS (default 3000) and WORKER_STANDBY=1 (load
 * everything, print "loaded", and take jobs only after "go" on stdin). Prints "ready" on stdout once it takes jobs.
 */
import path from "node:path";
import { createJsonLogger } from "@hermes/agent";
import {
  ALL_TOOL_NAMES,
  BUNDLED_HOOKS_DIR,
  loadBullMq,
  DEFAULT_TOOL_NAMES,
  HookRegistry,
  RedisSessionLock,
  createAgentPool,
  createRunProcessor,
  formatConfigIssues,
  loadConfig,
  type HookPort,
} from "@hermes/gateway";
import { tryOpenStore } from "@hermes/store";
import { Redis } from "ioredis";

const fail = (why: string): never => {
  process.stderr.write(`agent-worker-child: ${why}\n`);
  process.exit(2);
};

// Read settings only from the environment and the state folder, never a .env file of the repository.
const home = process.env.HERMES_HOME ?? fail("HERMES_HOME is required");
const loaded = await loadConfig({ env: process.env, cwd: home, homeDir: home, knownTools: ALL_TOOL_NAMES, defaultTools: DEFAULT_TOOL_NAMES });
if (!loaded.ok) fail(formatConfigIssues(loaded.errors));
const config = loaded.ok ? loaded.config : fail("unreachable");
const redisUrl = config.redisUrl ?? fail("REDIS_URL is required");
const lockMs = Number(process.env.WORKER_LOCK_MS ?? "3000");
const logger = createJsonLogger({ level: "info", bindings: { pid: process.pid } });

const opened = await tryOpenStore({ file: config.paths.stateDb, logger });
const store = opened.ok ? opened.store : fail(`cannot open the store: ${opened.error.message}`);
const hooks = await HookRegistry.load({ bundledDir: BUNDLED_HOOKS_DIR, operatorDir: config.paths.hooks, stateFile: path.join(config.paths.hooks, "state.json"), logger });
const built = await createAgentPool(config, { logger, store });
const pool = built.ok ? built.pool : fail(built.issue.message);
const { BullMqWorkerHost } = await loadBullMq();
const lockConnection = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
lockConnection.on("error", (error: Error) => logger.warn("redis connection error (session locks)", { error: error.message }));
// Loaded but idle until told to go: a crash test's replacement worker is ready the moment the old one dies.
process.stdout.write("loaded\n");
await new Promise<void>((resolve) => {
  if (process.env.WORKER_STANDBY !== "1") return resolve();
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => void (chunk.includes("go") && resolve()));
});

const host = new BullMqWorkerHost({
  redisUrl,
  concurrency: config.workers,
  logger,
  lockDurationMs: lockMs,
  stalledIntervalMs: Math.max(500, Math.floor(lockMs / 3)),
  // A parked run whose session holder died waits out the holder's lease, not the production 30 s.
  parkedSafetyDelayMs: lockMs,
  processor: createRunProcessor({
    store,
    lock: new RedisSessionLock(lockConnection),
    leaseMs: lockMs,
    agentFor: (model) => pool.agentFor(model),
    compressorFor: (key) => pool.compressorFor(key),
    memoryFor: (message, sessionId) => pool.memory.forMessage(message, sessionId),
    hooks: hooks as unknown as HookPort,
    sessionScope: config.sessionScope,
    workspace: config.paths.workspace,
    logger,
  }),
});

process.once("SIGTERM", () => {
  void host
    .close({ drainMs: 0 })
    .then(() => pool.shutdown())
    .then(() => store.close())
    .finally(() => process.exit(0));
});

await host.ready();
process.stdout.write("ready\n");
