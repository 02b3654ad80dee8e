import type { PacingRules } from "@hermes/gateway";

/**
 * Slack lets an app post about one message a second to a channel and tolerates short bursts. A burst of 3 lets the
 * first parts of a long answer (and a busy acknowledgement) go out at once while the rate over any few seconds
 * stays near one a second; a larger one would invite the 429s it is meant to avoid. Slack publishes no
 * per-workspace limit for posting that a single bot would reach first, so there is no global bucket.
 */
export const SLACK_PACING: PacingRules = {
  perChat: { ratePerSecond: 1, burst: 3 },
};
