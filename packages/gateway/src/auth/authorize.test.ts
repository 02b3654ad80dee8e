import { silentLogger } from "@hermes/agent";
import { beforeEach, describe, expect, it } from "vitest";
import type { InboundMessage } from "../core/inbound.js";
import type { AllowedUsersLike } from "./allowlist.js";
import { authorize, type AuthorizationDecision } from "./authorize.js";
import { MemoryPairingStore } from "./memory-pairing-store.js";
import { PairingService } from "./pairing-service.js";

const START = Date.UTC(2025, 0, 1, 12, 0, 0);
const NOBODY: AllowedUsersLike = { everyone: false, users: [] };

function message(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    platform: "telegram",
    chat: { id: "500", type: "dm" },
    user: { id: "500", name: "Eve" },
    messageId: "1",
    text: "hello",
    attachments: [],
    mentionedBot: false,
    timestamp: START,
    ...overrides,
  };
}

function codeIn(decision: AuthorizationDecision): string {
  if (decision.kind !== "pairing") throw new Error(`expected a pairing reply, got ${decision.kind}`);
  const match = /pairing code: ([A-Z0-9]{8})/.exec(decision.reply);
  if (!match?.[1]) throw new Error(`no code in: ${decision.reply}`);
  return match[1];
}

describe("authorize", () => {
  let now: number;
  let store: MemoryPairingStore;
  let pairing: PairingService;
  const deps = (allowed: AllowedUsersLike = NOBODY, botName?: string) => ({
    allowed,
    pairing,
    isApproved: (platform: string, userId: string) => store.isApproved(platform, userId),
    ...(botName === undefined ? {} : { botName }),
  });

  beforeEach(() => {
    now = START;
    store = new MemoryPairingStore();
    pairing = new PairingService({ store, now: () => now, logger: silentLogger });
  });

  it("allows an allowlisted user", async () => {
    const allowed = { everyone: false, users: [{ platform: "telegram", userId: "500" }] };
    expect(await authorize(message(), deps(allowed))).toEqual({ kind: "allowed" });
    expect(await authorize(message({ chat: { id: "-9", type: "group" } }), deps(allowed))).toEqual({ kind: "allowed" });
  });

  it("honours the platform wildcard and the global wildcard", async () => {
    const slackEveryone = { everyone: false, users: [{ platform: "slack", userId: "*" }] };
    expect(await authorize(message({ platform: "slack", user: { id: "U9" } }), deps(slackEveryone))).toEqual({ kind: "allowed" });
    expect((await authorize(message(), deps(slackEveryone))).kind).toBe("pairing");
    expect(await authorize(message({ platform: "discord" }), deps({ everyone: true, users: [] }))).toEqual({ kind: "allowed" });
  });

  it("always allows the local console", async () => {
    const local = message({ platform: "console", chat: { id: "local", type: "dm" }, user: { id: "operator" } });
    expect(await authorize(local, deps())).toEqual({ kind: "allowed" });
  });

  it("answers a stranger's DM with a pairing code and how the operator approves it", async () => {
    const decision = await authorize(message(), deps(NOBODY, "Hermes"));
    const code = codeIn(decision);
    expect(decision.kind === "pairing" && decision.reply).toContain(`hermes pairing approve telegram ${code}`);
    expect(decision.kind === "pairing" && decision.reply).toContain("expires in 1 hour");
    expect(decision.kind === "pairing" && decision.reply).toContain("Hermes");
    expect(await store.pendingRequests("telegram", now)).toMatchObject([{ userId: "500", userName: "Eve", chatId: "500" }]);
  });

  it("lets a user in once the operator approved their code", async () => {
    const code = codeIn(await authorize(message(), deps()));
    expect((await pairing.approve("telegram", code.toLowerCase())).ok).toBe(true);
    expect(await authorize(message(), deps())).toEqual({ kind: "allowed" });
  });

  it("answers a stranger who writes 5 times in 10 minutes once, then again with a new code after that", async () => {
    const decisions: AuthorizationDecision[] = [];
    for (let write = 0; write < 5; write++) {
      decisions.push(await authorize(message({ messageId: String(write) }), deps()));
      now += 2 * 60_000 - 1;
    }
    expect(decisions.map((decision) => decision.kind)).toEqual(["pairing", "ignored", "ignored", "ignored", "ignored"]);
    expect(decisions[1]).toEqual({ kind: "ignored", reason: "stranger already answered in the last 10 minutes" });
    now = START + 10 * 60_000;
    const later = await authorize(message({ messageId: "6" }), deps());
    expect(codeIn(later)).not.toBe(codeIn(decisions[0] ?? later));
  });

  it("gives 60 strangers on one platform a code each", async () => {
    const codes = new Set<string>();
    for (let id = 1; id <= 60; id++) {
      codes.add(codeIn(await authorize(message({ user: { id: `u${id}` }, chat: { id: `u${id}`, type: "dm" } }), deps())));
    }
    expect(codes.size).toBe(60);
  });

  it("ignores strangers in groups and channels without issuing a code", async () => {
    const inGroup = await authorize(message({ chat: { id: "-100", type: "group" }, mentionedBot: true }), deps());
    const inChannel = await authorize(message({ chat: { id: "C1", type: "channel" } }), deps());
    expect(inGroup).toEqual({ kind: "ignored", reason: "unauthorized user in a group" });
    expect(inChannel).toEqual({ kind: "ignored", reason: "unauthorized user in a channel" });
    expect(await store.pendingRequests("telegram", now)).toEqual([]);
  });

  it("ignores bots, even allowlisted ones", async () => {
    const bot = message({ user: { id: "500", isBot: true } });
    expect(await authorize(bot, deps())).toEqual({ kind: "ignored", reason: "message from a bot" });
    expect(await authorize(bot, deps({ everyone: true, users: [] }))).toMatchObject({ kind: "ignored" });
    expect(await store.pendingRequests("telegram", now)).toEqual([]);
  });
});
