import path from "node:path";
import type { Logger, MetricsRegistry } from "@hermes/agent";
import { createGatewayMemory, memoryStorageOf } from "../agent/memory-scopes.js";
import { resolveModelName } from "../agent/model-names.js";
import type { DeliveryRecord, Store } from "@hermes/store";
import { fileFetchGate, messageAuthorizer } from "./authorize-message.js";
import { openConfiguredStore } from "./open-configured-store.js";
import type { ConfigIssue } from "../config/errors.js";
import { configSecrets } from "../config/secrets.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { PlatformAdapter } from "../core/adapter.js";
import { Gateway } from "../core/gateway.js";
import type { InboundMessage } from "../core/inbound.js";
import { BUNDLED_HOOKS_DIR, HookRegistry } from "../hooks/index.js";
import type { HookPort } from "../core/ports.js";
import { GatewayHttpServer } from "../http/http-server.js";
import { listenIssue } from "../http/listen-issue.js";
import { DeliveryService } from "../outbound/delivery-service.js";
import { PlatformPacer } from "../outbound/pacer.js";
import { TypingTracker } from "../outbound/typing-tracker.js";
import { startAdapters } from "./adapter-start.js";
import { alwaysActive, type GatewayElection } from "./gateway-election.js";
import { createGatewayHealth } from "./gateway-health.js";
import { createGatewayMetrics } from "./gateway-metrics.js";
import { registerHealthRoutes } from "./health.js";
import { startRetentionTimer } from "./retention-timer.js";
import { settlesWithin, timerScheduler } from "../queue/scheduler.js";
import { createRunQueue } from "./run-queue.js";
import { resumeOpenRuns, watchRedisReconnects } from "./redis-reconnects.js";
import { compressSessionNow } from "./compress-now.js";
import { sharedFilesFor } from "../shared-files/shared-files-wiring.js";
import { claimTakeover, createPlatformDuty } from "./platform-duty.js";
import { gatewayVoiceMessages } from "../media/voice-wiring.js";
import { approvalToolsOf } from "../approval/approval-wiring.js";
import { messageEditor } from "./message-editor.js";
import { gatewayStreaming } from "./gateway-streaming.js";
import { waitIdle } from "./wait-idle.js";
import { runSettlement } from "./run-settlement.js";
import { apiServerFor } from "../api/api-server.js";
import { startCronScheduling } from "../cron/cron-wiring.js";

/** Replies still get this long to go out at shutdown even when runs get no drain (a failed start). */
const SHUTDOWN_FLUSH_MIN_MS = 2_000;

export interface GatewayProcessOptions {
  config: GatewayConfig;
  logger: Logger;
  adapters: PlatformAdapter[];
  /** Serve /healthz, /readyz, /metrics and webhooks (npm start); the terminal chat does without. */
  http: boolean;
  metrics: MetricsRegistry;
  /**
   * With REDIS_URL (`npm start`): act only while holding the active-gateway lease, a hot standby otherwise (no
   * adapters, delivery or recovery). `remakeAdapters` supplies fresh adapters when it becomes active again after stepping down.
   */
  election?: { election: GatewayElection; remakeAdapters: () => Promise<PlatformAdapter[]> };
}

export interface GatewayProcess {
  readonly gateway: Gateway;
  readonly store: Store;
  readonly mode: "inline" | "bullmq";
  readonly httpAddress?: { host: string; port: number };
  /**
   * Resolves once every message of the session is answered and its replies are delivered — or, with
   * `orWaitingForApproval`, once a run of it waits on an approval whose prompt went out (the terminal then reads the
   * person's /approve or /deny while the run waits).
   */
  waitIdle(sessionKey: string, options?: { orWaitingForApproval?: boolean }): Promise<void>;
  /** Like /stop: drops the session's queued messages and stops its running answer (nothing is re-run later). */
  interrupt(sessionKey: string): Promise<void>;
  /** Stops intake, lets running answers finish for up to `drainMs` (default 10 s), flushes replies, closes everything. */
  stop(options?: { drainMs?: number }): Promise<void>;
}

/** Builds and starts everything the gateway process runs: store, hooks, queue, delivery, HTTP, adapters. */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<{ ok: true; process: GatewayProcess } | { ok: false; issue: ConfigIssue }> {
  const { config, logger } = options;
  const opened = await openConfiguredStore(config, logger);
  if (!opened.ok) return opened;
  const store = opened.store;
  // Hook handlers (e.g. the audit log) find the state folder through the environment.
  process.env.HERMES_HOME = config.home;
  // With PostgreSQL: skills and hook state as the database has them before anything reads them.
  const sharedFiles = sharedFilesFor(config, { store, logger });
  await sharedFiles?.sync.pull();
  const stopSharedFiles = sharedFiles && [sharedFiles.poll(), sharedFiles.pruneCopies()];
  const hooks = await HookRegistry.load({
    bundledDir: BUNDLED_HOOKS_DIR,
    operatorDir: config.paths.hooks,
    stateFile: path.join(config.paths.hooks, "state.json"),
    logger,
  });
  const unwatchHooks = hooks.watch();
  const hookPort = hooks as unknown as HookPort;

  const streaming = gatewayStreaming(config, logger);
  // HERMES_API_SERVER_KEY: the OpenAI-compatible API is one more platform; a request whose caller left stops its run.
  // Like /stop: drops the session's queued messages and stops its running answer (nothing is re-run later).
  const stopSession = async (key: string): Promise<void> => {
    await store.inbound.cancelQueued(key);
    await queue.stop(key);
  };
  const api = options.http ? apiServerFor(config, { store, logger, stopRun: stopSession }) : undefined;
  const queueSetup = await createRunQueue(config, { store, hooks: hookPort, logger, metrics: options.metrics, sharedFiles: sharedFiles?.sync, streamTo: api?.streamTo(streaming?.sink) ?? streaming?.sink });
  if (!queueSetup.ok) {
    stopSharedFiles?.forEach((stop) => stop());
    unwatchHooks();
    await store.close();
    return queueSetup;
  }
  const { queue, pool, mode, withSessionLock, relay } = queueSetup;
  const adapters = new Map((api?.withAdapter(options.adapters) ?? options.adapters).map((adapter) => [adapter.platform, adapter]));
  let stopping = false;
  // Only a served /readyz needs a Redis probe of its own; the terminal chat opens none.
  const election = options.election?.election ?? alwaysActive();
  const metrics = createGatewayMetrics(options.metrics, { store, waitingRuns: () => queue.waiting(), pendingDeliveries: () => store.deliveries.countPending(), role: () => election.role(), keptRuns: relay && (() => relay.backlogSize()) });
  const health = createGatewayHealth({ platforms: [...adapters.keys()], store, mode, redisUrl: options.http ? config.redisUrl : undefined, relayBacklog: relay && (() => relay.backlogSize()), metrics, logger, secrets: configSecrets(config), isStopping: () => stopping, election: options.election?.election, mcpServers: pool && (() => pool.mcp.status()) });
  // One pacer for the process: replies, busy acknowledgements and typing share each platform's limits.
  const pacer = new PlatformPacer({ platforms: options.adapters });
  const typing = new TypingTracker({ adapters, logger, pacer });
  const delivery = new DeliveryService({
    streams: streaming?.start({ store, adapters, pacer, isActive: () => duty.active }),
    store: store.deliveries,
    inbound: store.inbound,
    adapters,
    logger,
    pacer,
    onDeferred: (record) => metrics.deliveriesDeferred.inc(1, { platform: record.platform }),
    onDelivered: (record, outcome) => {
      metrics.deliveries.inc(1, { outcome });
      const full = record as Partial<DeliveryRecord>;
      if (full.inboundId !== undefined) typing.end(`inbound:${full.inboundId}`);
      if (outcome === "sent") void hooks.emit({ type: "message:sent", timestamp: Date.now(), platform: record.platform, chatId: record.chatId, sessionKey: full.sessionKey, text: record.text });
    },
  });
  const authorizeMessage = messageAuthorizer(config, store, logger);

  const markDone = (message: InboundMessage): void => {
    const adapter = adapters.get(message.platform);
    adapter?.markDone?.(message).catch((error: unknown) =>
      logger.warn("adapter markDone failed", { platform: message.platform, error }),
    );
  };

  // With BullMQ the agents run on workers; /memory and /forget work on the same files from here.
  const memory = pool?.memory ?? createGatewayMemory(config, { logger, toolsEnabled: false, storage: memoryStorageOf(config, store) });
  let http: GatewayHttpServer | undefined;
  const duty = createPlatformDuty({
    adapters,
    remakeAdapters: api ? api.remaking(options.election?.remakeAdapters) : options.election?.remakeAdapters,
    delivery,
    takeOverClaims: claimTakeover({ deliveries: store.deliveries, owner: delivery.owner, platforms: () => [...adapters.keys()], logger }),
    recover: async () => {
      // Another platform's messages belong to the process that runs it (`npm run chat` beside `npm start` runs the console only).
      const unfinished = (await store.inbound.unfinished(10_000)).filter((record) => adapters.has(record.platform));
      const pending = api ? await api.withoutAbandoned(unfinished) : unfinished;
      if (pending.length > 0) logger.info("recovering unfinished messages", { count: pending.length });
      await gateway.recover(pending);
    },
    startAdapters: (started) =>
      startAdapters(started, {
        context: () => ({
          receive: (message) => (sharedFiles ? sharedFiles.shareInbound(message).then((shared) => gateway.receive(shared)) : gateway.receive(message)),
          route: http ? (method, routePath, handler) => http?.route(method, routePath, handler) : undefined,
          mayFetchFiles: fileFetchGate(config, store),
        }),
        health: health.platforms,
        logger,
      }),
    afterPutDown: () => typing.stopAll(),
  });
  const gateway = new Gateway({
    memory,
    approvals: approvalToolsOf(config).size > 0 ? store.approvals : undefined,
    editMessage: messageEditor(adapters, pacer, logger),
    voice: gatewayVoiceMessages(config, logger, options.metrics),
    markDone,
    onAccepted: (message) => metrics.received.inc(1, { platform: message.platform }),
    onIntakeRefused: (message, reason) => {
      metrics.intakeSkipped.inc(1, { platform: message.platform, reason });
      api?.adapter.intakeRefused(message, reason);
    },
    store,
    queue,
    hooks: hookPort,
    // A standby sends nothing: the active gateway delivers what is stored.
    delivery: { flush: () => (duty.active ? delivery.flush() : Promise.resolve(undefined)) },
    typing,
    authorize: authorizeMessage,
    limits: config.limits,
    sessionScope: config.sessionScope,
    botName: () => config.botName,
    models: { primary: config.model?.model ?? "(set on the workers)", fallback: config.fallback?.model },
    checkModel: (name) => {
      const resolved = resolveModelName(config, name);
      return resolved.ok ? undefined : resolved.error;
    },
    withSessionLock,
    compress: (key) => (pool ? compressSessionNow(store, pool, key, hookPort) : Promise.resolve("Compression runs on the workers; it happens automatically when the conversation gets long.")),
    logger,
  });

  // A run's replies are in the outbox before its job completes: send them then, not after the run's bookkeeping and
  // (with workers) a queue round trip later. Its job's settling then has nothing more to send (a failure notice
  // flushes by itself).
  const announced = new Set<number>();
  queue.onRepliesStored?.((inboundId) => {
    if (!duty.active) return;
    // Settle events lost with a Redis that came back empty would leave entries behind; a bound keeps that harmless.
    if (announced.size >= 10_000) announced.clear();
    announced.add(inboundId);
    void delivery.flush();
  });
  queue.onSettled((job, outcome) => {
    const flushedForReplies = announced.delete(job.inboundId);
    // Every gateway hears settled runs from BullMQ; only the active one answers for them.
    if (!duty.active) return;
    metrics.runs.inc(1, { outcome });
    typing.end(`inbound:${job.inboundId}`);
    if (!flushedForReplies) void delivery.flush();
    void settle(job.inboundId, outcome);
  });
  const settle = runSettlement({ store, runDuration: metrics.runDuration, notice: (message, text) => gateway.notice(message, text), markDone, logger });
  const retention = startRetentionTimer({ retention: store.retention, settings: config.retention, logger });
  // Scheduled tasks start only in the active gateway, whose delivery sends their answers.
  const cron = startCronScheduling({ store, queue, logger, hooks: hookPort, isActive: () => duty.active && !stopping, platforms: () => [...adapters.keys()], allowedUsers: config.allowedUsers, dailyBudgetUsd: config.limits.dailyBudgetUsd });
  // A Redis back without its data forgot the jobs of open messages; only the active gateway answers for them.
  const reconnects = config.redisUrl
    ? watchRedisReconnects(config.redisUrl, () => {
        if (duty.active) void resumeOpenRuns({ unfinished: (limit) => store.inbound.unfinished(limit), runsPlatform: (platform) => adapters.has(platform), resume: (records) => gateway.recover(records), logger });
      }, logger)
    : undefined;

  /** Everything but the adapters, in dependency order: runs, replies, HTTP, hooks, agents, the database. */
  const releaseAll = async (drainMs: number): Promise<void> => {
    await reconnects?.close();
    await cron.stop();
    await queue.close({ drainMs });
    // Bounded: a reply paced to a group's 20 a minute, or waiting out a long retry_after, must not hold the shutdown.
    // What is left stays in the outbox, and stop() ends the pacer waits and gives the claims back for the next start.
    if (duty.active && !(await settlesWithin(delivery.flush(), Math.max(drainMs, SHUTDOWN_FLUSH_MIN_MS), timerScheduler))) {
      logger.warn("replies still pending at shutdown stay in the outbox for the next start", { waitedMs: Math.max(drainMs, SHUTDOWN_FLUSH_MIN_MS) });
    }
    // Before the delivery service: a reply's delivery waits for its stream's send in flight, which may wait on the pacer.
    await streaming?.close();
    await delivery.stop();
    typing.stopAll();
    await http?.stop();
    stopSharedFiles?.forEach((stop) => stop());
    unwatchHooks();
    health.close();
    await pool?.shutdown();
    if (!pool) await memory.shutdown();
    await retention.stop();
    await store.close();
  };

  let httpAddress: { host: string; port: number } | undefined;
  if (options.http) {
    http = new GatewayHttpServer({ host: config.http.host, port: config.http.port, logger });
    registerHealthRoutes(http, { health: () => health.health(), readiness: () => health.readiness(), metrics: options.metrics, metricsToken: config.metricsToken });
    api?.registerRoutes(http);
  }

  // Bound before anything starts so a port in use is a clear configuration error, not a half-started gateway.
  if (http) {
    try {
      httpAddress = await http.start();
    } catch (error) {
      await releaseAll(0);
      await election.release();
      return { ok: false, issue: listenIssue(error, "HERMES_HTTP_PORT", config.http) };
    }
  }

  await election.start(duty);
  await hooks.emit({ type: "gateway:startup", timestamp: Date.now(), platforms: [...adapters.keys()] });

  const running: GatewayProcess = {
    gateway,
    store,
    mode,
    httpAddress,
    waitIdle: (sessionKey, waitOptions) => waitIdle(store, sessionKey, waitOptions),
    interrupt: stopSession,
    stop: async (stopOptions) => {
      if (stopping) return;
      stopping = true;
      await hooks.emit({ type: "gateway:shutdown", timestamp: Date.now() });
      await election.halt();
      await duty.stopAdapters();
      await releaseAll(stopOptions?.drainMs ?? 10_000);
      await election.release();
    },
  };
  return { ok: true, process: running };
}
