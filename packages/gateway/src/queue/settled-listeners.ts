import type { Logger } from "@hermes/agent";
import type { AgentRunJob, SettledListener, SettledOutcome } from "./types.js";

/** Calls every listener; one that throws is logged and cannot keep the others from hearing. */
export function notifySettled(
  listeners: readonly SettledListener[],
  job: AgentRunJob,
  outcome: SettledOutcome,
  logger: Logger,
): void {
  for (const listener of listeners) {
    try {
      listener({ ...job }, outcome);
    } catch (error) {
      logger.error("settled listener threw", { ...job, outcome, error });
    }
  }
}
