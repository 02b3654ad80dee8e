import { createHash } from "node:crypto";

/** Discord accepts a string nonce of at most 25 characters. */
export const NONCE_LENGTH = 25;

/** What makes two sends "the same reply": the channel (or thread), the message answered, and the text. */
export interface ReplyIdentity {
  channelId: string;
  replyToMessageId?: string;
  text: string;
}

/**
 * For sends without an `idempotencyKey` (the adapter's own notices): nonces that let Discord recognise a re-sent reply (`enforce_nonce`): a send whose answer never arrived (a timeout)
 * may have created the message anyway, and the gateway's retry must get that message back instead of a second copy.
 *
 * The nonce is derived from the reply rather than drawn at random, so a retry after a restart still matches. Once a
 * reply is confirmed delivered, the next identical one (the bot saying "Done." twice) gets a new round and so a new
 * nonce; otherwise Discord would swallow it as a duplicate.
 */
export class ReplyNonces {
  /** Delivered rounds per reply; insertion order doubles as age for forgetting the oldest. */
  private readonly rounds = new Map<string, number>();

  constructor(private readonly capacity = 5_000) {}

  /** The nonce for sending this reply now: the same as the previous attempt's unless that one was delivered. */
  nonceFor(reply: ReplyIdentity): string {
    const key = keyOf(reply);
    return replyNonce(key, this.rounds.get(key) ?? 0);
  }

  /** Discord created (or returned) the message: an identical reply from now on is a new message. */
  delivered(reply: ReplyIdentity): void {
    const key = keyOf(reply);
    const round = (this.rounds.get(key) ?? 0) + 1;
    this.rounds.delete(key);
    this.rounds.set(key, round);
    if (this.rounds.size > this.capacity) {
      const oldest = this.rounds.keys().next();
      if (!oldest.done) this.rounds.delete(oldest.value);
    }
  }
}

/**
 * The nonce for a part with the gateway's `idempotencyKey` (`d<deliveryId>p<part>`), the same on every attempt and
 * after a restart with no memory needed. The reply itself is hashed in too: a fresh database numbers its deliveries
 * from 1 again, and a new reply that happened to reuse a recent key must not be swallowed as that old message.
 */
export function idempotentNonce(idempotencyKey: string, reply: ReplyIdentity): string {
  return replyNonce(keyOf(reply), `key:${idempotencyKey}`);
}

function keyOf(reply: ReplyIdentity): string {
  return createHash("sha256")
    .update(JSON.stringify([reply.channelId, reply.replyToMessageId ?? "", reply.text]))
    .digest("base64url");
}

function replyNonce(key: string, round: number | string): string {
  return createHash("sha256").update(`${key}:${round}`).digest("base64url").slice(0, NONCE_LENGTH);
}
