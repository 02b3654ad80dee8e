import type { Logger } from "@hermes/agent";
import type { GatewayLease, GatewayLeaseHolder } from "./gateway-lease.js";

export type GatewayRole = "active" | "standby";

/** What the active gateway alone does: platform connections, delivery, recovery of unfinished messages. */
export interface ActiveDuty {
  takeUp(): Promise<void>;
  putDown(): Promise<void>;
}

export interface GatewayElection {
  role(): GatewayRole;
  /** The active gateway as a standby last saw it. */
  activeGateway(): GatewayLeaseHolder | undefined;
  /** Starts electing; resolves after the first attempt, and after taking up the duty if that attempt won. */
  start(duty: ActiveDuty): Promise<void>;
  /**
   * No further change of role; waits for one under way. An active gateway keeps renewing its lease until `release`, so
   * no standby takes over while it is still flushing replies on its way out.
   */
  halt(): Promise<void>;
  /** Stops renewing and gives the lease up, once the duty is put down, so a standby takes over at once. */
  release(): Promise<void>;
}

/** Embedded mode and the terminal chat: the only gateway, active from the start. */
export function alwaysActive(): GatewayElection {
  return {
    role: () => "active",
    activeGateway: () => undefined,
    start: (duty) => duty.takeUp(),
    halt: async () => undefined,
    release: async () => undefined,
  };
}

export interface LeaseElectionOptions {
  logger: Logger;
  /** How often a standby tries to take the lease (default 2 s). */
  acquireEveryMs?: number;
  /** How often the active gateway renews it (default 3 s, a third of its lifetime). */
  renewEveryMs?: number;
}

/**
 * One active gateway among several sharing Redis: whoever holds the lease is active, the others are hot standbys that
 * try to take it. Renewals keep running while the duty is being taken up or put down; role changes run one at a time.
 * A renewal that cannot reach Redis keeps the role, since nobody else can take the lease while Redis is away either.
 */
export function leaseElection(lease: GatewayLease, options: LeaseElectionOptions): GatewayElection {
  const { logger } = options;
  const acquireEveryMs = options.acquireEveryMs ?? 2_000;
  const renewEveryMs = options.renewEveryMs ?? 3_000;
  let role: GatewayRole = "standby";
  let active: GatewayLeaseHolder | undefined;
  let duty: ActiveDuty | undefined;
  let halted = false;
  let released = false;
  let timer: NodeJS.Timeout | undefined;
  let attempting: Promise<void> = Promise.resolve();
  let changes: Promise<void> = Promise.resolve();
  let unreachable = false;
  let firstAttempt = true;

  const change = (work: (duty: ActiveDuty) => Promise<void>, done: string): void => {
    changes = changes.then(async () => {
      if (duty === undefined) return;
      try {
        await work(duty);
        logger.info(done);
      } catch (error) {
        logger.error("changing the gateway's role failed", { error });
      }
    });
  };

  // Holding the lease without the platform connections would keep every standby out for as long as this one lives.
  const takeUpOrGiveUp = async (d: ActiveDuty): Promise<void> => {
    try {
      await d.takeUp();
    } catch (error) {
      role = "standby";
      await d.putDown().catch((putDownError: unknown) => logger.error("could not put down a duty half taken up", { error: putDownError }));
      await lease.release();
      logger.warn("gave the active-gateway lease up: the duty could not be taken up");
      throw error;
    }
  };

  const sawActive = (holder: GatewayLeaseHolder | undefined): void => {
    const changed = JSON.stringify(holder) !== JSON.stringify(active);
    active = holder;
    if (changed && holder !== undefined) logger.info("standing by: another gateway is active", { active: holder });
  };

  const cannotReach = (error: Error): void => {
    if (unreachable) return;
    unreachable = true;
    logger.warn(role === "active" ? "cannot renew the active-gateway lease, Redis is unreachable; staying active" : "cannot reach Redis to take the active-gateway lease; staying standby", { error });
  };

  const attempt = async (): Promise<void> => {
    if (role === "standby") {
      if (halted) return;
      const result = await lease.tryAcquire();
      const first = firstAttempt;
      firstAttempt = false;
      if (result.outcome === "unreachable" && first) return assumeActive(result.error);
      if (result.outcome === "unreachable") return cannotReach(result.error);
      unreachable = false;
      if (result.outcome === "held") return sawActive(result.holder);
      if (halted) return lease.release();
      role = "active";
      active = undefined;
      change(takeUpOrGiveUp, "became the active gateway");
      return;
    }
    const result = await lease.renew();
    if (result.outcome === "unreachable") return cannotReach(result.error);
    if (unreachable) logger.info("renewed the active-gateway lease after Redis came back");
    unreachable = false;
    if (result.outcome === "renewed") return;
    role = "standby";
    // Shutting down already puts the duty down.
    if (halted) return;
    logger.warn("another gateway took the active-gateway lease; stepping down to standby", { active: result.holder });
    sawActive(result.holder);
    change((d) => d.putDown(), "stepped down: platforms and delivery stopped, standing by");
  };

  // Intake must not depend on Redis: a gateway that starts during an outage takes messages in rather than waiting
  // for an election it cannot hold. Should another gateway turn out to hold the lease once Redis answers, the renewal
  // reports it lost and this one steps down; meanwhile the store deduplicates intake and delivery claims keep a reply
  // from being sent by both.
  const assumeActive = (error: Error): void => {
    unreachable = true;
    logger.warn("cannot reach Redis to elect the active gateway; acting as the active one until it answers", { error });
    lease.assume();
    role = "active";
    active = undefined;
    change(takeUpOrGiveUp, "became the active gateway (Redis unreachable; the lease decides once it answers)");
  };

  const tick = (): void => {
    timer = undefined;
    attempting = attempt()
      .catch((error: unknown) => logger.error("active-gateway election failed", { error }))
      .finally(() => {
        if (!released && (!halted || role === "active")) schedule();
      });
  };
  const schedule = (): void => {
    timer = setTimeout(tick, role === "active" ? renewEveryMs : acquireEveryMs);
    timer.unref();
  };

  return {
    role: () => role,
    activeGateway: () => (role === "standby" ? active : undefined),
    async start(given) {
      duty = given;
      tick();
      await attempting;
      await changes;
    },
    async halt() {
      halted = true;
      if (role === "standby") clearTimeout(timer);
      await attempting;
      await changes;
    },
    async release() {
      released = true;
      clearTimeout(timer);
      await attempting;
      if (role === "active") await lease.release();
      role = "standby";
      await lease.close();
    },
  };
}
