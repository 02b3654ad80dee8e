import path from "node:path";
import { createAgentMetrics } from "@hermes/agent";
import {
  API_PLATFORM,
  openConfiguredStore,
  approvalGateFor,
  publishStreamUpdate,
  BUNDLED_HOOKS_DIR,
  loadBullMq,
  GatewayHttpServer,
  listenIssue,
  HookRegistry,
  RedisSessionLock,
  bootstrap,
  createAgentPool,
  createBudgetRefusalsMetric,
  createStoreUpMetric,
  createWorkerHealth,
  createRunProcessor,
  sharedFilesFor,
  storeOutageCheck,
  registerHealthRoutes,
  reportIssue,
  shutdownRequested,
  type HookPort,
} from "@hermes/gateway";
import { Redis } from "ioredis";

/**
 * `npm run worker`: runs queued agent runs from Redis (BullMQ). Workers never talk to chat platforms: replies go to
 * the shared store's outbox and the gateway delivers them.
 */
async function main(): Promise<number> {
  const boot = await bootstrap({ env: process.env, cwd: process.cwd(), stderr: process.stderr, logName: "worker", stderrLevel: "info" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger, metrics, tracing } = boot.value;
  if (!config.redisUrl) {
    return reportIssue(process.stderr, { setting: "REDIS_URL", message: "is required for a worker (e.g. REDIS_URL=redis://127.0.0.1:6379); without it `npm start` runs the agent in-process" });
  }
  const opened = await openConfiguredStore(config, logger);
  if (!opened.ok) return reportIssue(process.stderr, opened.issue);
  const store = opened.store;
  process.env.HERMES_HOME = config.home;
  // With PostgreSQL this home starts empty: skills and hook state come from the database, and again before each run.
  const sharedFiles = sharedFilesFor(config, { store, logger });
  await sharedFiles?.sync.pull();
  const stopPruningCopies = sharedFiles?.pruneCopies();
  const hooks = await HookRegistry.load({ bundledDir: BUNDLED_HOOKS_DIR, operatorDir: config.paths.hooks, stateFile: path.join(config.paths.hooks, "state.json"), logger });
  const unwatchHooks = hooks.watch();
  const built = await createAgentPool(config, { logger, store, metrics: createAgentMetrics(metrics), sharedFiles: sharedFiles?.sync });
  if (!built.ok) {
    stopPruningCopies?.();
    unwatchHooks();
    await store.close();
    return reportIssue(process.stderr, built.issue);
  }
  const pool = built.pool;
  const budgetRefusals = createBudgetRefusalsMetric(metrics);
  createStoreUpMetric(metrics, store);
  const { BullMqWorkerHost } = await loadBullMq();
  const lockConnection = new Redis(config.redisUrl, { maxRetriesPerRequest: 3, lazyConnect: false });
  // Without a listener ioredis reports connection errors as unhandled; they are logged and retried instead.
  lockConnection.on("error", (error: Error) => logger.warn("redis connection error (session locks)", { error: error.message }));
  // Listening before the host takes jobs, so a signal during the rest of start-up hands them back cleanly.
  const shutdown = shutdownRequested();
  const host = new BullMqWorkerHost({
    redisUrl: config.redisUrl,
    concurrency: config.workers,
    logger,
    storeAway: storeOutageCheck(store),
    processor: createRunProcessor({
      store,
      lock: new RedisSessionLock(lockConnection),
      agentFor: (model) => pool.agentFor(model),
      compressorFor: (key) => pool.compressorFor(key),
      memoryFor: (message, sessionId) => pool.memory.forMessage(message, sessionId),
      reviewerFor: (key, memory) => pool.reviewerFor(key, memory),
      beforeRun: sharedFiles && ((key, sessionId) => sharedFiles.sync.beforeRun(key, sessionId)),
      hooks: hooks as unknown as HookPort,
      // Published as the reply is written; lost updates cost only an edit, the final reply comes from the outbox. The
      // OpenAI-compatible API streams to its callers whatever HERMES_STREAMING says.
      streamTo: (update) => {
        if (config.interaction.streaming !== "edit" && update.platform !== API_PLATFORM) return;
        void publishStreamUpdate(lockConnection, update).catch((error: unknown) => logger.debug("could not publish a stream update", { error }));
      },
      // The prompt goes out at once: the gateway delivers it while this run waits on the answer.
      approvalGate: approvalGateFor(config, { approvals: store.approvals, deliveries: store.deliveries, announce: (inboundId) => host.repliesStored([inboundId]), logger, metrics }),
      dailyBudgetUsd: config.limits.dailyBudgetUsd,
      onBudgetRefused: (message) => budgetRefusals.inc(1, { platform: message.platform }),
      sessionScope: config.sessionScope,
      workspace: config.paths.workspace,
      // The host exists by the time a run stores replies: it starts taking jobs only after it is constructed.
      onRepliesStored: (inboundIds) => host.repliesStored(inboundIds),
      logger,
    }),
  });
  await host.ready();

  let http: GatewayHttpServer | undefined;
  let stopping = false;
  /** Runs still going after `drainMs` are handed back to the queue for another worker. */
  const release = async (drainMs: number): Promise<void> => {
    stopping = true;
    await host.close({ drainMs });
    await http?.stop();
    health?.close();
    stopPruningCopies?.();
    unwatchHooks();
    await pool.shutdown();
    lockConnection.disconnect();
    await store.close();
  };
  const health = config.workerHttpPort === undefined ? undefined : createWorkerHealth({ store, redisUrl: config.redisUrl, model: config.model?.model, host, logger, isStopping: () => stopping, mcpServers: () => pool.mcp.status() });
  if (config.workerHttpPort !== undefined && health) {
    http = new GatewayHttpServer({ host: config.http.host, port: config.workerHttpPort, logger });
    registerHealthRoutes(http, { health: () => health.health(), readiness: () => health.readiness(), metrics, metricsToken: config.metricsToken });
    try {
      const address = await http.start();
      logger.info("worker http listening", { url: `http://${address.host}:${address.port}` });
    } catch (error) {
      http = undefined;
      await release(0);
      return reportIssue(process.stderr, listenIssue(error, "HERMES_WORKER_HTTP_PORT", { host: config.http.host, port: config.workerHttpPort }));
    }
  }
  logger.info("worker started", { concurrency: config.workers });

  logger.info("worker shutting down", { signal: await shutdown });
  await release(10_000);
  logger.info("worker stopped");
  await tracing.shutdown();
  return 0;
}

main().then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`hermes worker: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
