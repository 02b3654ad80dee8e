const PREFIX = "agent:main:cron:";

/** The session key of a job's runs: its own conversation, apart from the chat's. */
export function cronRunKey(jobId: string): string {
  return `${PREFIX}${jobId}`;
}

export function isCronRunKey(sessionKey: string): boolean {
  return sessionKey.startsWith(PREFIX);
}

/** The inbound message id of one slot's run: a second start of the same slot is a duplicate. */
export function cronMessageId(jobId: string, slot: number): string {
  return `cron:${jobId}:${slot}`;
}
