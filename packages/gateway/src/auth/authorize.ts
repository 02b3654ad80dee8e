import type { InboundMessage } from "../core/inbound.js";
import { isAllowlisted, type AllowedUsersLike } from "./allowlist.js";
import type { PairingService } from "./pairing-service.js";
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
  // A reminder on every message would let a stranger make the bot write back as fast as they write.
  if (outcome.kind === "recently_answered") {
    return { kind: "ignored", reason: `stranger already answered in the last ${minutes(PAIRING_REQUEST_INTERVAL_MS)}` };
  }
  return { kind: "pairing", reply: codeReply(outcome.code, platform, deps.botName ?? "this bot") };
}

function codeReply(code: string, platform: string, botName: string): string {
  return [
    `Hi! I only talk to people my operator has approved, and I don't know you yet.`,
    ``,
    `Your pairing code: ${code}`,
    ``,
    `Send it to the person who runs ${botName}; they approve you with:`,
    `hermes pairing approve ${platform} ${code}`,
    ``,
    `The code expires in ${minutes(PAIRING_CODE_TTL_MS)}; I'll tell you here once you're approved.`,
    `Until then I stay quiet; if you lose the code, write again after ${minutes(PAIRING_REQUEST_INTERVAL_MS)} for a new one.`,
  ].join("\n");
}

function minutes(ms: number): string {
  const count = Math.round(ms / 60_000);
  if (count % 60 === 0) return count === 60 ? "1 hour" : `${count / 60} hours`;
  return count === 1 ? "1 minute" : `${count} minutes`;
}
