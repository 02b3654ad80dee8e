import { redactSecrets, type Gauge, type Logger } from "@hermes/agent";
import type { AdapterState, AdapterStatus } from "../core/adapter.js";

/** One platform's connection as /healthz and /readyz show it. */
export interface PlatformHealthEntry {
  state: AdapterState;
  /** The cause of the most recent failure, kept after a recovery so operators see what happened. */
  lastError: string | null;
  /** When the current state began (ISO 8601). */
  since: string;
  /** When the adapter plans its next attempt (ISO 8601), while retrying. */
  retryAt?: string;
}

export interface PlatformHealthOptions {
  platforms: readonly string[];
  logger: Logger;
  /** `hermes_adapter_up{platform}`: 1 while connected, 0 otherwise. */
  up: Gauge;
  /** Configured secret values: an adapter's error text is served unauthenticated by /healthz and /readyz. */
  secrets?: readonly string[];
  now?: () => number;
}

/**
 * Tracks what each adapter reports about its connection. Every platform starts `connecting`; a transition (or a new
 * error while retrying) is logged once: info when connected, warn while retrying, error when failed.
 */
export class PlatformHealth {
  private readonly entries = new Map<string, PlatformHealthEntry>();
  private readonly logger: Logger;
  private readonly up: Gauge;
  private readonly now: () => number;
  private readonly secrets: readonly string[];

  constructor(options: PlatformHealthOptions) {
    this.logger = options.logger;
    this.secrets = options.secrets ?? [];
    this.up = options.up;
    this.now = options.now ?? Date.now;
    for (const platform of options.platforms) {
      this.entries.set(platform, { state: "connecting", lastError: null, since: this.iso(this.now()) });
      this.up.set(0, { platform });
    }
  }

  report(platform: string, status: AdapterStatus): void {
    const previous = this.entries.get(platform);
    const error = typeof status.error === "string" && status.error !== "" ? redactSecrets(status.error, this.secrets) : undefined;
    const changed = previous === undefined || previous.state !== status.state;
    const entry: PlatformHealthEntry = {
      state: status.state,
      lastError: error ?? previous?.lastError ?? null,
      since: changed || previous === undefined ? this.iso(this.now()) : previous.since,
      ...(status.state === "retrying" && status.retryAt !== undefined && Number.isFinite(status.retryAt) && { retryAt: this.iso(status.retryAt) }),
    };
    this.entries.set(platform, entry);
    this.up.set(status.state === "connected" ? 1 : 0, { platform });
    if (changed || (error !== undefined && error !== previous?.lastError)) this.log(platform, entry, previous?.state);
  }

  /** Keyed by platform, in the order the platforms were configured. */
  snapshot(): Record<string, PlatformHealthEntry> {
    return Object.fromEntries([...this.entries].map(([platform, entry]) => [platform, { ...entry }]));
  }

  get(platform: string): PlatformHealthEntry | undefined {
    const entry = this.entries.get(platform);
    return entry && { ...entry };
  }

  private log(platform: string, entry: PlatformHealthEntry, from: AdapterState | undefined): void {
    const fields = { platform, state: entry.state, ...(from !== undefined && { from }), ...(entry.lastError !== null && entry.state !== "connected" && { error: entry.lastError }), ...(entry.retryAt !== undefined && { retryAt: entry.retryAt }) };
    if (entry.state === "failed") this.logger.error("platform connection failed; the operator must act", fields);
    else if (entry.state === "retrying") this.logger.warn("platform connection lost or refused; retrying", fields);
    else if (entry.state === "connected") this.logger.info("platform connected", fields);
    else this.logger.info("platform connecting", fields);
  }

  private iso(epochMs: number): string {
    return new Date(epochMs).toISOString();
  }
}
