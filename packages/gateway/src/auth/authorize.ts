import type { InboundMessage } from "../core/inbound.js";
import { isAllowlisted, type AllowedUsersLike } from "./allowlist.js";
import type { PairingOutcome, PairingService } from "./pairing-service.js";
import { PAIRING_CODE_TTL_MS, PAIRING_REQUEST_INTERVAL_MS } from "./pairing-rules.js";

export type AuthorizationDecision =
  | { kind: "allowed" }
  /** Not allowed yet: send `reply` to the user's DM and stop there. */
  | { kind: "pairing"; reply: string }
  /** Drop silently; `reason` is for the operator's log. */
  | { kind: "ignored"; reason: string };

export interface AuthorizeDeps {
  allowed: AllowedUsersLike;
  pairing: PairingService;
  isApproved: (platform: string, userId: string) => Promise<boolean>;
  /** How the pairing replies name the bot; "this bot" when absent. */
  botName?: string;
}

/** The local terminal belongs to whoever runs the process. */
const LOCAL_PLATFORM = "console";

/** Decides whether an inbound message may reach the agent, and what a stranger is told when it may not. */
export async function authorize(message: InboundMessage, deps: AuthorizeDeps): Promise<AuthorizationDecision> {
  const { platform, user, chat } = message;
  // Bots answering bots loop forever, and a bot can't take part in pairing anyway.
  if (user.isBot === true) return { kind: "ignored", reason: "message from a bot" };
  if (platform === LOCAL_PLATFORM) return { kind: "allowed" };
  if (user.id === "") return { kind: "ignored", reason: "message without a user id" };
  if (isAllowlisted(deps.allowed, platform, user.id)) return { kind: "allowed" };
  if (await deps.isApproved(platform, user.id)) return { kind: "allowed" };
  // A code posted in a group could be read and used by anyone there.
  if (chat.type !== "dm") return { kind: "ignored", reason: `unauthorized user in a ${chat.type}` };

  const requester = { platform, userId: user.id, chatId: chat.id };
  const outcome = await deps.pairing.requestCode(user.name === undefined ? requester : { ...requester, userName: user.name });
  return { kind: "pairing", reply: pairingReply(outcome, platform, deps.botName ?? "this bot") };
}

function pairingReply(outcome: PairingOutcome, platform: string, botName: string): string {
  switch (outcome.kind) {
    case "code_issued":
      return [
        `Hi! I only talk to people my operator has approved, and I don't know you yet.`,
        ``,
        `Your pairing code: ${outcome.code}`,
        ``,
        `Send it to the person who runs ${botName}; they approve you with:`,
        `hermes pairing approve ${platform} ${outcome.code}`,
        ``,
        `The code expires in ${minutes(PAIRING_CODE_TTL_MS)}. Once you're approved, just write to me again.`,
      ].join("\n");
    case "already_pending":
      return [
        `Your pairing request is still waiting for the operator of ${botName} to approve it.`,
        `Please use the code I sent you earlier; I can't show it again.`,
        `If you lost it, write to me again later: I hand out a new code at most once every ${minutes(PAIRING_REQUEST_INTERVAL_MS)}.`,
      ].join("\n");
    case "too_many_pending":
      return `Sorry, ${botName} has too many pairing requests waiting for approval right now. Please try again later.`;
  }
}

function minutes(ms: number): string {
  const count = Math.round(ms / 60_000);
  if (count % 60 === 0) return count === 60 ? "1 hour" : `${count / 60} hours`;
  return count === 1 ? "1 minute" : `${count} minutes`;
}
