import type { App } from "@slack/bolt";
import type { Logger } from "@hermes/agent";

const SOCKET_CONNECT_WAIT_MS = 30_000;

/**
 * Socket Mode keeps retrying while Slack is unreachable; the gateway's start must not wait for that, so after
 * `waitMs` the connection goes on in the background. A refusal (a bad app token) still fails the start.
 */
export async function startSocketMode(app: App, options: { logger: Logger; waitMs?: number }): Promise<void> {
  const connecting = app.start().then(() => "connected" as const);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<"waiting">((resolve) => {
    timer = setTimeout(() => resolve("waiting"), options.waitMs ?? SOCKET_CONNECT_WAIT_MS);
    timer.unref();
  });
  try {
    if ((await Promise.race([connecting, waited])) === "connected") return;
  } finally {
    clearTimeout(timer);
  }
  options.logger.warn("slack Socket Mode is still connecting; the gateway goes on without waiting");
  connecting.then(
    () => options.logger.info("slack Socket Mode connected"),
    (error: unknown) => options.logger.error("slack Socket Mode could not connect", { error: error instanceof Error ? error.message : String(error) }),
  );
}
