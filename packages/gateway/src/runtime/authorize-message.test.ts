import { describe, expect, it } from "vitest";
import { API_PLATFORM } from "../api/api-adapter.js";
import type { AllowedUsersLike } from "../auth/allowlist.js";
import { MemoryPairingStore } from "../auth/memory-pairing-store.js";
import type { InboundMessage } from "../core/inbound.js";
import { fileFetchGate } from "./authorize-message.js";

const NOBODY: AllowedUsersLike = { everyone: false, users: [] };

function withFile(platform: string, user: InboundMessage["user"], chatType: InboundMessage["chat"]["type"] = "dm"): InboundMessage {
  return {
    platform,
    chat: { id: "c1", type: chatType },
    user,
    messageId: "m1",
    text: "look",
    attachments: [{ kind: "document", name: "notes.txt" }],
    mentionedBot: true,
    timestamp: 0,
  };
}

describe("fileFetchGate: whose files may be downloaded", () => {
  it("the allowlisted and the paired, in DMs and groups; never a stranger, a bot or a sender without an id; the console and the API always", async () => {
    const pairing = new MemoryPairingStore();
    await pairing.approve({ platform: "telegram", userId: "8" }, 0);
    const gate = fileFetchGate({ allowedUsers: { everyone: false, users: [{ platform: "discord", userId: "7" }] } }, { pairing });

    expect(await gate(withFile("discord", { id: "7" }, "group"))).toBe(true);
    expect(await gate(withFile("telegram", { id: "8" }))).toBe(true);
    expect(await gate(withFile("telegram", { id: "8" }, "group"))).toBe(true);
    expect(await gate(withFile("telegram", { id: "9" }))).toBe(false);
    expect(await gate(withFile("telegram", { id: "9" }, "group"))).toBe(false);
    // Approval on one platform says nothing about the same id on another.
    expect(await gate(withFile("slack", { id: "8" }))).toBe(false);
    expect(await gate(withFile("telegram", { id: "8", isBot: true }))).toBe(false);
    expect(await gate(withFile("telegram", { id: "" }))).toBe(false);
    expect(await gate(withFile("console", { id: "operator" }))).toBe(true);
    expect(await gate(withFile(API_PLATFORM, { id: "client" }))).toBe(true);
    // Asking issued no pairing code: the message's own routing does that.
    expect(await pairing.pendingRequests("telegram", 0)).toEqual([]);
  });

  it("lets everyone's files in with HERMES_ALLOWED_USERS=*, and rejects when the database cannot say", async () => {
    const everyone = fileFetchGate({ allowedUsers: { everyone: true, users: [] } }, { pairing: new MemoryPairingStore() });
    expect(await everyone(withFile("slack", { id: "U1" }))).toBe(true);

    const pairing = new MemoryPairingStore();
    pairing.isApproved = () => Promise.reject(new Error("database unreachable"));
    const away = fileFetchGate({ allowedUsers: NOBODY }, { pairing });
    await expect(away(withFile("slack", { id: "U1" }))).rejects.toThrow("database unreachable");
  });
});
