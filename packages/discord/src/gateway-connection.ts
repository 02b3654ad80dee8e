import { Events, type Client } from "discord.js";
import type { Logger } from "@hermes/agent";
import { abortableSleep, type AdapterState, type AdapterStatus } from "@hermes/gateway";
import { closeFailure, loginFailure, type GatewayFailure } from "./gateway-failure.js";
import { reconnectDelayMs, type ReconnectBackoff } from "./reconnect-backoff.js";

export interface GatewayConnectionDeps {
  token: string;
  /** A new discord.js client with the adapter's message handling attached; one per login. */
  createClient: () => Client;
  report: (status: AdapterStatus) => void;
  logger: Logger;
  backoff: ReconnectBackoff;
  now: () => number;
  random?: () => number;
}

/** How `start` ended its wait: the first state after `connecting`, or "waiting" when it did not come in time. */
export type StartOutcome = Exclude<AdapterState, "connecting"> | "waiting";

const DESTROY_TIMEOUT_MS = 5_000;
const CONNECTION_LOST = "the gateway connection was lost; reconnecting";

/**
 * Keeps the bot connected to Discord's gateway for as long as it runs. discord.js resumes or identifies again after
 * ordinary drops by itself; when it gives up (a close it deems fatal, a rejected login) this logs in again with a
 * fresh client, forever, with capped backoff. Each change of state is reported to the gateway as it happens.
 */
export class GatewayConnection {
  private readonly stopping = new AbortController();
  private last: AdapterStatus | undefined;
  private failures = 0;
  private running: Promise<void> | undefined;
  private settle: ((outcome: StartOutcome) => void) | undefined;

  constructor(private readonly deps: GatewayConnectionDeps) {}

  /** Starts connecting in the background; resolves once connected or failed once, or after `waitMs` at most. */
  async start(waitMs: number): Promise<StartOutcome> {
    const settled = new Promise<StartOutcome>((resolve) => {
      this.settle = resolve;
    });
    this.report({ state: "connecting" });
    this.running = this.run().catch((error: unknown) => {
      // Only a bug gets here; without this the bot would sit disconnected with nobody told.
      const message = error instanceof Error ? error.message : String(error);
      this.deps.logger.error("the Discord connection stopped unexpectedly", { error: message, stack: error instanceof Error ? error.stack : undefined });
      this.report({ state: "failed", error: `the Discord connection stopped unexpectedly: ${message}` });
    });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<StartOutcome>((resolve) => {
      timer = setTimeout(() => resolve("waiting"), waitMs);
    });
    try {
      return await Promise.race([settled, waited]);
    } finally {
      clearTimeout(timer);
      this.settle = undefined;
    }
  }

  /** Ends the connection and any pending retry; nothing is reported after this. */
  async stop(): Promise<void> {
    this.stopping.abort();
    this.settle?.("waiting");
    await this.running;
  }

  private async run(): Promise<void> {
    const { signal } = this.stopping;
    while (!signal.aborted) {
      const client = this.deps.createClient();
      const failure = await this.session(client);
      const retryAt = failure ? this.retryLater(failure) : undefined;
      await destroyClient(client, this.deps.logger);
      if (retryAt === undefined) return;
      await abortableSleep(Math.max(0, retryAt - this.deps.now()), signal);
    }
  }

  /** Logs `client` in and follows it until discord.js gives up on it (the failure) or the adapter stops (undefined). */
  private session(client: Client): Promise<GatewayFailure | undefined> {
    const { signal } = this.stopping;
    return new Promise((resolve) => {
      // Once over, the client is on its way out: its last events must not overwrite the state of the next one.
      let over = false;
      const end = (failure: GatewayFailure | undefined): void => {
        if (over) return;
        over = true;
        signal.removeEventListener("abort", onAbort);
        resolve(failure);
      };
      const onAbort = (): void => end(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      client.once(Events.ClientReady, (ready) => {
        if (!over) this.connected("connected to Discord", { bot: ready.user.tag, guilds: ready.guilds.cache.size });
      });
      client.on(Events.ShardReady, (shardId) => {
        // The first READY is followed by ClientReady once the guilds arrived; a later one is a fresh session after a drop.
        if (!over && client.isReady()) this.connected("Discord gateway session started again", { shardId });
      });
      client.on(Events.ShardResume, (shardId, replayedEvents) => {
        if (!over) this.connected("Discord gateway session resumed", { shardId, replayedEvents });
      });
      client.on(Events.ShardReconnecting, (shardId) => {
        if (!over) this.interrupted(CONNECTION_LOST, { shardId });
      });
      client.on(Events.ShardError, (error, shardId) => {
        if (!over) this.interrupted(`gateway connection error: ${error.message}`, { shardId });
      });
      client.on(Events.ShardDisconnect, (event) => end(closeFailure(event.code)));
      if (signal.aborted) return end(undefined);
      client.login(this.deps.token).catch((error: unknown) => end(loginFailure(error)));
    });
  }

  private connected(message: string, fields: Record<string, unknown>): void {
    this.failures = 0;
    this.deps.logger.info(message, fields);
    this.report({ state: "connected" });
  }

  /** discord.js is reconnecting by itself: routine (Discord asks clients to reconnect now and then), but not ready. */
  private interrupted(cause: string, fields: Record<string, unknown>): void {
    if (this.last?.state === "retrying" && this.last.error === cause) return;
    this.deps.logger.warn("Discord gateway connection interrupted; discord.js is reconnecting", { ...fields, error: cause });
    this.report({ state: "retrying", error: cause });
  }

  /** discord.js gave up: schedules a login with a fresh client and says when. */
  private retryLater(failure: GatewayFailure): number {
    this.failures += 1;
    const delayMs = reconnectDelayMs(this.failures, failure.permanent, this.deps.backoff, this.deps.random);
    const retryAt = this.deps.now() + delayMs;
    const fields = { error: failure.cause, attempt: this.failures, retryInMs: delayMs };
    if (this.last?.state === "retrying" && this.last.error === failure.cause) this.deps.logger.warn("still cannot connect to Discord; trying again later", fields);
    else this.deps.logger.error("Discord connection failed; logging in again later", fields);
    this.report({ state: "retrying", error: failure.cause, retryAt });
    return retryAt;
  }

  private report(status: AdapterStatus): void {
    if (this.stopping.signal.aborted) return;
    const last = this.last;
    if (last && last.state === status.state && last.error === status.error && last.retryAt === status.retryAt) return;
    this.last = status;
    this.deps.report(status);
    if (status.state !== "connecting") this.settle?.(status.state);
  }
}

/** discord.js can hang destroying a connection that is still being set up; neither retries nor shutdown may hang with it. */
async function destroyClient(client: Client, logger: Logger): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<"gave up">((resolve) => {
    timer = setTimeout(() => resolve("gave up"), DESTROY_TIMEOUT_MS);
  });
  const closed = client.destroy().then(
    () => "closed" as const,
    () => "closed" as const,
  );
  const outcome = await Promise.race([closed, gaveUp]);
  clearTimeout(timer);
  client.removeAllListeners();
  if (outcome === "gave up") logger.warn("the Discord connection did not close in time; leaving it behind", { waitedMs: DESTROY_TIMEOUT_MS });
}
