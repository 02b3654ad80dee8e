import type { MessageComponents } from "./buttons.js";

/** Discord accepts edits and follow-ups on an interaction token for 15 minutes. */
export const INTERACTION_TOKEN_LIFETIME_MS = 15 * 60 * 1000;

/**
 * Answers one deferred interaction: the first part replaces "thinking…", the others follow it, each with its buttons
 * (none: an empty list). Resolve to the message id. `edit` changes one of the messages posted this way.
 */
export interface InteractionReplier {
  editReply(text: string, components: MessageComponents): Promise<string>;
  followUp(text: string, components: MessageComponents): Promise<string>;
  edit(messageId: string, text: string, components: MessageComponents): Promise<void>;
}

interface Pending {
  replier: InteractionReplier;
  until: number;
  answered: boolean;
  /** Parts already posted, by idempotency key, so a resent part is not posted twice. */
  posted: Map<string, string>;
  /** Every message posted through the interaction, which only its token can edit (an ephemeral one above all). */
  messageIds: Set<string>;
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
    this.entries.set(interactionId, { replier, until: now + INTERACTION_TOKEN_LIFETIME_MS, answered: false, posted: new Map(), messageIds: new Set() });
  }

  has(interactionId: string): boolean {
    return this.live(interactionId) !== undefined;
  }

  /** Posts a part of the reply; undefined when the interaction is not (or no longer) answerable here. Throws what discord.js throws. */
  async reply(interactionId: string, text: string, idempotencyKey?: string, components: MessageComponents = []): Promise<string | undefined> {
    const entry = this.live(interactionId);
    if (!entry) return undefined;
    const earlier = idempotencyKey === undefined ? undefined : entry.posted.get(idempotencyKey);
    if (earlier !== undefined) return earlier;
    const first = !entry.answered;
    const id = first ? await entry.replier.editReply(text, components) : await entry.replier.followUp(text, components);
    entry.answered = true;
    entry.messageIds.add(id);
    if (idempotencyKey !== undefined) entry.posted.set(idempotencyKey, id);
    return id;
  }

  /** Edits a message this interaction posted; false when it did not post it or can no longer edit. Throws what discord.js throws. */
  async edit(interactionId: string, messageId: string, text: string, components: MessageComponents): Promise<boolean> {
    const entry = this.live(interactionId);
    if (!entry || !entry.messageIds.has(messageId)) return false;
    await entry.replier.edit(messageId, text, components);
    return true;
  }

  private live(interactionId: string): Pending | undefined {
    const entry = this.entries.get(interactionId);
    return entry !== undefined && entry.until > this.now() ? entry : undefined;
  }
}
