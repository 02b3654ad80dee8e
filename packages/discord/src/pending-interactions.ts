/** Discord accepts edits and follow-ups on an interaction token for 15 minutes. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

/** Answers one deferred interaction: the first part replaces "thinking…", the others follow it. Resolve to the message id. */
export interface InteractionReplier {
  editReply(text: string): Promise<string>;
  followUp(text: string): Promise<string>;
}

interface Pending {
  replier: InteractionReplier;
  until: number;
  answered: boolean;
  /** Parts already posted, by idempotency key, so a resent part is not posted twice. */
  posted: Map<string, string>;
}

/**
 * The deferred interactions whose replies may still come. Kept in memory: the process that took the interaction is
 * the one that delivers its reply right after it; a reply delivered elsewhere, later or after a restart finds none here
 * and goes to the channel as a normal message.
 */
export class PendingInteractions {
  private readonly entries = new Map<string, Pending>();

  constructor(private readonly now: () => number) {}

  remember(interactionId: string, replier: InteractionReplier): void {
    const now = this.now();
    for (const [id, entry] of this.entries) if (entry.until <= now) this.entries.delete(id);
    this.entries.set(interactionId, { replier, until: now + INTERACTION_TOKEN_LIFETIME_MS, answered: false, posted: new Map() });
  }

  has(interactionId: string): boolean {
    const entry = this.entries.get(interactionId);
    return entry !== undefined && entry.until > this.now();
  }

  /** Posts a part of the reply; undefined when the interaction is not (or no longer) answerable here. Throws what discord.js throws. */
  async reply(interactionId: string, text: string, idempotencyKey?: string): Promise<string | undefined> {
    const entry = this.entries.get(interactionId);
    if (!entry || entry.until <= this.now()) return undefined;
    const earlier = idempotencyKey === undefined ? undefined : entry.posted.get(idempotencyKey);
    if (earlier !== undefined) return earlier;
    const first = !entry.answered;
    const id = first ? await entry.replier.editReply(text) : await entry.replier.followUp(text);
    entry.answered = true;
    if (idempotencyKey !== undefined) entry.posted.set(idempotencyKey, id);
    return id;
  }
}
