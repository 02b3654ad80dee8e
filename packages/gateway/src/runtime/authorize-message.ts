import type { Logger } from "@hermes/agent";
import type { Store } from "@hermes/store";
import { API_PLATFORM } from "../api/api-adapter.js";
import { isAllowlisted } from "../auth/allowlist.js";
import { authorize } from "../auth/authorize.js";
import { PairingService } from "../auth/pairing-service.js";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { AuthorizationResult } from "../core/gateway-options.js";
import type { InboundMessage } from "../core/inbound.js";

/** Who may talk to the bot: the allowlist, then pairing; the console's and the API's callers are allowed by how they came. */
export function messageAuthorizer(config: Pick<GatewayConfig, "allowedUsers" | "botName">, store: Pick<Store, "pairing">, logger: Logger) {
  const pairing = new PairingService({ store: store.pairing, logger });
  return async (message: InboundMessage): Promise<AuthorizationResult> => {
    // The API key, checked before the message existed, is the caller's authorization.
    if (message.platform === API_PLATFORM) return { kind: "allowed", via: "allowlist" };
    const decision = await authorize(message, { allowed: config.allowedUsers, pairing, isApproved: (p, u) => store.pairing.isApproved(p, u), botName: config.botName });
    if (decision.kind !== "allowed") return decision;
    if (message.platform === "console") return { kind: "allowed", via: "console" };
    return { kind: "allowed", via: isAllowlisted(config.allowedUsers, message.platform, message.user.id) ? "allowlist" : "paired" };
  };
}

/**
 * Whether a message's files may be downloaded (AdapterContext.mayFetchFiles): the sender is one the bot talks to, as
 * `authorize` decides, but asked without side effects (no pairing code is issued here; the message's own routing
 * does that). The console's and the API's callers are the operator's own.
 */
export function fileFetchGate(config: Pick<GatewayConfig, "allowedUsers">, store: Pick<Store, "pairing">) {
  return async (message: InboundMessage): Promise<boolean> => {
    if (message.platform === "console" || message.platform === API_PLATFORM) return true;
    if (message.user.isBot === true || message.user.id === "") return false;
    if (isAllowlisted(config.allowedUsers, message.platform, message.user.id)) return true;
    return store.pairing.isApproved(message.platform, message.user.id);
  };
}
