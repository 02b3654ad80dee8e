import { bootstrap, connectGatewayLease, leaseElection, offerSetup, reportIssue, shutdownRequested, startGatewayProcess, takeHomeLock, type Bootstrapped } from "@hermes/gateway";
import { configuredAdapters, NO_PLATFORM_HINT } from "./platforms.js";

/** `npm start`: the gateway process — platform adapters, routing, delivery, HTTP; in embedded mode also the agent runs. */
async function main(): Promise<number> {
  // On a terminal with no model and no Redis configured, offer the setup wizard first; it saves config.yaml, read next.
  await offerSetup({ env: process.env, cwd: process.cwd(), input: process.stdin, output: process.stdout });
  const boot = await bootstrap({ env: process.env, cwd: process.cwd(), stderr: process.stderr, logName: "gateway", stderrLevel: "info" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger, tracing } = boot.value;

  // Embedded mode: one gateway per HERMES_HOME, since two would both hold the platform connections. With Redis, the
  // active-gateway lease decides instead, and further gateways on the same HERMES_HOME are standbys.
  const locked = config.redisUrl ? undefined : await takeHomeLock(config.home, { logger });
  if (locked && !locked.ok) {
    const { pid, hostname, since } = locked.holder;
    process.stderr.write(
      `hermes gateway: another gateway is running on HERMES_HOME ${config.home} (pid ${pid} on ${hostname}, since ${since}); stop it first or give this one its own HERMES_HOME (\`npm run chat\` is safe beside it; if that process is gone, delete ${locked.file})\n`,
    );
    return 2;
  }
  try {
    return await serve(boot.value);
  } finally {
    if (locked?.ok) await locked.lock.release();
    await tracing.shutdown();
  }
}

async function serve({ config, logger, metrics }: Bootstrapped): Promise<number> {
  const adapters = await configuredAdapters(config, { logger, metrics });
  // The OpenAI-compatible API is a platform of its own, added by the gateway process.
  if (adapters.length === 0 && config.apiServerKey === undefined) process.stderr.write(`${NO_PLATFORM_HINT}\n`);
  const lease = config.redisUrl ? connectGatewayLease(config.redisUrl, logger) : undefined;
  // Stopped adapters cannot start again, so a gateway that stepped down and is elected again makes new ones.
  const election = lease && { election: leaseElection(lease, { logger }), remakeAdapters: () => configuredAdapters(config, { logger, metrics }) };

  // Listening before the start: the adapters take messages while start-up finishes.
  const shutdown = shutdownRequested();
  const started = await startGatewayProcess({ config, logger, adapters, http: true, metrics, election });
  if (!started.ok) {
    await lease?.close();
    return reportIssue(process.stderr, started.issue);
  }
  const gateway = started.process;
  const address = gateway.httpAddress;
  const role = election?.election.role() ?? "active";
  logger.info("gateway started", { mode: gateway.mode, role, http: address ? `http://${address.host}:${address.port}` : undefined, platforms: adapters.map((a) => a.platform) });

  logger.info("shutting down", { signal: await shutdown });
  await gateway.stop();
  logger.info("gateway stopped");
  return 0;
}

main().then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`hermes gateway: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
