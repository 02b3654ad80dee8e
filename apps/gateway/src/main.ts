import { bootstrap, offerSetup, onShutdownSignal, reportIssue, startGatewayProcess } from "@hermes/gateway";
import { configuredAdapters, NO_PLATFORM_HINT } from "./platforms.js";

/** `npm start`: the gateway process — platform adapters, routing, delivery, HTTP; in embedded mode also the agent runs. */
async function main(): Promise<number> {
  // On a terminal with no model and no Redis configured, offer the setup wizard first; it saves config.yaml, read next.
  await offerSetup({ env: process.env, cwd: process.cwd(), input: process.stdin, output: process.stdout });
  const boot = await bootstrap({ env: process.env, cwd: process.cwd(), stderr: process.stderr, logName: "gateway", stderrLevel: "info" });
  if (!boot.ok) return boot.exitCode;
  const { config, logger, metrics, tracing } = boot.value;

  const adapters = await configuredAdapters(config, { logger, metrics });
  if (adapters.length === 0) process.stderr.write(`${NO_PLATFORM_HINT}\n`);

  const started = await startGatewayProcess({ config, logger, adapters, http: true, metrics });
  if (!started.ok) return reportIssue(process.stderr, started.issue);
  const gateway = started.process;
  const address = gateway.httpAddress;
  logger.info("gateway started", { mode: gateway.mode, http: address ? `http://${address.host}:${address.port}` : undefined, platforms: adapters.map((a) => a.platform) });

  await new Promise<void>((resolve) => {
    onShutdownSignal((signal) => {
      logger.info("shutting down", { signal });
      resolve();
    });
  });
  await gateway.stop();
  logger.info("gateway stopped");
  await tracing.shutdown();
  return 0;
}

main().then(
  (code) => process.stdout.write("", () => process.exit(code)),
  (error: unknown) => {
    process.stderr.write(`hermes gateway: unexpected failure: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
