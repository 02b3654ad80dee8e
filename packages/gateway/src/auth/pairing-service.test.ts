import type { Logger } from "@hermes/agent";
import { beforeEach, describe, expect, it } from "vitest";
import { MemoryPairingStore } from "./memory-pairing-store.js";
import { PairingService, type PairingOutcome } from "./pairing-service.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const START = Date.UTC(2025, 0, 1, 12, 0, 0);

function recordingLogger(lines: string[]): Logger {
  const write = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push(`${level} ${message} ${JSON.stringify(fields ?? {})}`);
  };
  const logger: Logger = { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error"), child: () => logger };
  return logger;
}

function issuedCode(outcome: PairingOutcome): string {
  if (outcome.kind !== "code_issued") throw new Error(`expected a code, got ${outcome.kind}`);
  return outcome.code;
}

/** A valid code that is not `code` (shifted one letter along the alphabet). */
function otherCode(code: string): string {
  return code.startsWith("A") ? `B${code.slice(1)}` : `A${code.slice(1)}`;
}

const alice = { platform: "telegram", userId: "101", userName: "Alice", chatId: "101" };
const bob = { platform: "telegram", userId: "102", userName: "Bob", chatId: "102" };
const carol = { platform: "telegram", userId: "103", chatId: "103" };
const dave = { platform: "telegram", userId: "104", userName: "Dave", chatId: "104" };

describe("PairingService", () => {
  let now: number;
  let store: MemoryPairingStore;
  let logs: string[];
  let service: PairingService;

  beforeEach(() => {
    now = START;
    store = new MemoryPairingStore();
    logs = [];
    service = new PairingService({ store, now: () => now, logger: recordingLogger(logs) });
  });

  describe("issuing codes", () => {
    it("issues an 8-character code that expires in an hour", async () => {
      const outcome = await service.requestCode(alice);
      expect(outcome).toEqual({ kind: "code_issued", code: expect.stringMatching(/^[A-Z2-9]{8}$/), expiresAt: START + HOUR });
    });

    it("stores a salted hash, never the code, and never logs it", async () => {
      const aliceCode = issuedCode(await service.requestCode(alice));
      const bobCode = issuedCode(await service.requestCode(bob));
      const stored = store.allRequests();
      expect(stored).toHaveLength(2);
      const persisted = JSON.stringify(stored);
      expect(persisted).not.toContain(aliceCode);
      expect(persisted).not.toContain(bobCode);
      expect(stored[0]?.salt).not.toBe(stored[1]?.salt);
      expect(stored[0]).toMatchObject({ userId: "101", userName: "Alice", chatId: "101", createdAt: START, expiresAt: START + HOUR });
      expect(logs.join("\n")).not.toContain(aliceCode);
      expect(logs.join("\n")).toContain("pairing code issued");
    });

    it("stays quiet for a user who asks again within 10 minutes instead of issuing another code", async () => {
      await service.requestCode(alice);
      now += 9 * MINUTE;
      expect(await service.requestCode(alice)).toEqual({ kind: "recently_answered" });
      expect(store.allRequests()).toHaveLength(1);
    });

    it("replaces a user's request with a fresh code after 10 minutes", async () => {
      const first = issuedCode(await service.requestCode(alice));
      now += 10 * MINUTE;
      const second = await service.requestCode(alice);
      expect(second).toMatchObject({ kind: "code_issued", expiresAt: now + HOUR });
      expect(store.allRequests()).toHaveLength(1);
      expect(await service.approve("telegram", first)).toEqual({ ok: false, error: "invalid_code" });
      expect(await service.approve("telegram", issuedCode(second))).toMatchObject({ ok: true });
    });

    it("gives each of 60 strangers on one platform a code, keeping the newest 50 pending", async () => {
      const strangers = Array.from({ length: 60 }, (_, index) => ({ platform: "telegram", userId: `s${index}`, chatId: `s${index}` }));
      const codes: string[] = [];
      for (const stranger of strangers) {
        codes.push(issuedCode(await service.requestCode(stranger)));
        now += 1;
      }
      expect(new Set(codes).size).toBe(60);
      const pending = await store.pendingRequests("telegram", now);
      expect(pending.map((request) => request.userId)).toEqual(strangers.slice(10).map((stranger) => stranger.userId));
      expect(logs.some((line) => line.startsWith("warn") && line.includes("expired early"))).toBe(true);
      expect(await service.approve("telegram", codes[59] ?? "")).toMatchObject({ ok: true, user: { userId: "s59" } });
      expect(await service.approve("telegram", codes[0] ?? "")).toEqual({ ok: false, error: "invalid_code" });
      expect((await service.requestCode({ ...dave, platform: "discord" })).kind).toBe("code_issued");
    });

    it("stays quiet for a stranger whose request was crowded out, until 10 minutes have passed", async () => {
      await service.requestCode(alice);
      for (let index = 0; index < 50; index++) await service.requestCode({ platform: "telegram", userId: `s${index}`, chatId: `s${index}` });
      expect((await store.pendingRequests("telegram", now)).some((request) => request.userId === alice.userId)).toBe(false);
      expect(await service.requestCode(alice)).toEqual({ kind: "recently_answered" });
      now += 10 * MINUTE;
      expect((await service.requestCode(alice)).kind).toBe("code_issued");
    });

    it("gives a stranger whose messages arrive together a single code", async () => {
      const outcomes = await Promise.all([service.requestCode(alice), service.requestCode(alice), service.requestCode(alice)]);
      expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["code_issued", "recently_answered", "recently_answered"]);
      expect(store.allRequests()).toHaveLength(1);
    });

    it("holds the per-platform limit against a burst of strangers", async () => {
      const burst = Array.from({ length: 55 }, (_, index) => ({ platform: "telegram", userId: `b${index}`, chatId: `b${index}` }));
      const outcomes = await Promise.all(burst.map((user) => service.requestCode(user)));
      expect(outcomes.every((outcome) => outcome.kind === "code_issued")).toBe(true);
      expect(store.allRequests()).toHaveLength(50);
    });

    it("keeps one live request per user when they renew it", async () => {
      for (const user of [alice, bob, carol]) await service.requestCode(user);
      now += 10 * MINUTE;
      expect((await service.requestCode(alice)).kind).toBe("code_issued");
      expect(store.allRequests()).toHaveLength(3);
    });
  });

  describe("approving", () => {
    it("approves a code typed in lower case with spaces and dashes, and forgets the request", async () => {
      const code = issuedCode(await service.requestCode(alice));
      const typed = ` ${code.slice(0, 4).toLowerCase()}-${code.slice(4)} `;
      expect(await service.approve("telegram", typed)).toEqual({
        ok: true,
        user: { platform: "telegram", userId: "101", userName: "Alice", chatId: "101" },
        notified: false,
      });
      expect(await store.isApproved("telegram", "101")).toBe(true);
      expect(store.allRequests()).toEqual([]);
      expect(await service.approve("telegram", code)).toEqual({ ok: false, error: "invalid_code" });
    });

    it("approves a user who gave no name", async () => {
      const code = issuedCode(await service.requestCode(carol));
      expect(await service.approve("telegram", code)).toEqual({ ok: true, user: { platform: "telegram", userId: "103", chatId: "103" }, notified: false });
    });

    it("queues the notice that they can start for the DM the request came from", async () => {
      const queued: unknown[] = [];
      const notifying = new PairingService({ store, now: () => now, logger: recordingLogger(logs), notices: { enqueue: async (notice) => queued.push(notice) } });
      const code = issuedCode(await notifying.requestCode({ ...alice, chatId: "dm-101" }));
      expect(await notifying.approve("telegram", code)).toMatchObject({ ok: true, notified: true });
      expect(queued).toEqual([{ platform: "telegram", chatId: "dm-101", text: "You're approved — you can start chatting now.", kind: "notice" }]);
    });

    it("queues one notice when two approvals of the same code race (two `hermes pairing approve` at once)", async () => {
      const queued: unknown[] = [];
      const notices = { enqueue: async (notice: unknown) => queued.push(notice) };
      const first = new PairingService({ store, now: () => now, logger: recordingLogger(logs), notices });
      const second = new PairingService({ store, now: () => now, logger: recordingLogger(logs), notices });
      const code = issuedCode(await first.requestCode(alice));
      const results = await Promise.all([first.approve("telegram", code), second.approve("telegram", code)]);
      expect(results.map((result) => result.ok)).toEqual([true, true]);
      expect(queued).toHaveLength(1);
      expect(results.filter((result) => result.ok && result.notified)).toHaveLength(1);
      expect(await store.isApproved("telegram", "101")).toBe(true);
    });

    it("still approves when the notice cannot be queued, and says so", async () => {
      const failing = new PairingService({
        store,
        now: () => now,
        logger: recordingLogger(logs),
        notices: { enqueue: async () => Promise.reject(new Error("disk full")) },
      });
      const code = issuedCode(await failing.requestCode(alice));
      expect(await failing.approve("telegram", code)).toMatchObject({ ok: true, notified: false });
      expect(await store.isApproved("telegram", "101")).toBe(true);
      expect(logs.some((line) => line.startsWith("warn") && line.includes("notice to the user could not be queued"))).toBe(true);
    });

    it("finds the right request among several", async () => {
      await service.requestCode(alice);
      const bobCode = issuedCode(await service.requestCode(bob));
      await service.requestCode(carol);
      expect(await service.approve("telegram", bobCode)).toMatchObject({ ok: true, user: { userId: "102" } });
      expect(store.allRequests().map((request) => request.userId)).toEqual(["101", "103"]);
    });

    it("only approves a code on the platform it was issued for", async () => {
      const code = issuedCode(await service.requestCode(alice));
      expect(await service.approve("discord", code)).toEqual({ ok: false, error: "invalid_code" });
      expect((await service.approve("telegram", code)).ok).toBe(true);
    });

    it("rejects a code once its hour is up", async () => {
      const code = issuedCode(await service.requestCode(alice));
      now += HOUR;
      expect(await service.approve("telegram", code)).toEqual({ ok: false, error: "invalid_code" });
      expect(await store.isApproved("telegram", "101")).toBe(false);
    });

    it("issues a new code to a user whose request expired", async () => {
      await service.requestCode(alice);
      now += HOUR + 1;
      expect((await service.requestCode(alice)).kind).toBe("code_issued");
      expect(store.allRequests()).toHaveLength(1);
    });
  });

  describe("lock-out", () => {
    it("locks approvals for a platform for an hour after 5 failed attempts", async () => {
      const bobCode = issuedCode(await service.requestCode(bob));
      for (let attempt = 1; attempt <= 4; attempt++) {
        expect(await service.approve("telegram", otherCode(bobCode))).toEqual({ ok: false, error: "invalid_code" });
      }
      expect(await service.approve("telegram", "garbage")).toEqual({ ok: false, error: "invalid_code", retryAfterMs: HOUR });
      const lockedAt = now;

      now += 20 * MINUTE;
      const locked = await service.approve("telegram", bobCode);
      expect(locked).toEqual({ ok: false, error: "locked_out", retryAfterMs: 40 * MINUTE });
      expect(logs.some((line) => line.includes("locked after repeated failures"))).toBe(true);

      // Strangers can still ask for codes, and other platforms are unaffected.
      const aliceCode = issuedCode(await service.requestCode(alice));
      const discordCode = issuedCode(await service.requestCode({ ...dave, platform: "discord" }));
      expect((await service.approve("discord", discordCode)).ok).toBe(true);

      now = lockedAt + HOUR - 1;
      expect(await service.approve("telegram", aliceCode)).toEqual({ ok: false, error: "locked_out", retryAfterMs: 1 });
      now = lockedAt + HOUR;
      expect(await service.approve("telegram", aliceCode)).toMatchObject({ ok: true, user: { userId: "101" } });
    });

    it("starts counting afresh once a lock-out is over", async () => {
      const code = issuedCode(await service.requestCode(alice));
      for (let attempt = 0; attempt < 5; attempt++) await service.approve("telegram", otherCode(code));
      now += HOUR + 1;
      const renewed = issuedCode(await service.requestCode(alice));
      expect(await service.approve("telegram", otherCode(renewed))).toEqual({ ok: false, error: "invalid_code" });
      expect((await service.approve("telegram", renewed)).ok).toBe(true);
    });

    it("forgets failures older than an hour", async () => {
      const code = issuedCode(await service.requestCode(alice));
      for (let attempt = 0; attempt < 4; attempt++) await service.approve("telegram", otherCode(code));
      now += HOUR + 1;
      const renewed = issuedCode(await service.requestCode(alice));
      expect(await service.approve("telegram", otherCode(renewed))).toEqual({ ok: false, error: "invalid_code" });
      expect((await service.approve("telegram", renewed)).ok).toBe(true);
    });

    it("clears the failure count after a successful approval", async () => {
      const aliceCode = issuedCode(await service.requestCode(alice));
      const bobCode = issuedCode(await service.requestCode(bob));
      for (let attempt = 0; attempt < 4; attempt++) await service.approve("telegram", "WRONG234");
      expect((await service.approve("telegram", aliceCode)).ok).toBe(true);
      expect(await service.approve("telegram", "WRONG234")).toEqual({ ok: false, error: "invalid_code" });
      expect((await service.approve("telegram", bobCode)).ok).toBe(true);
    });
  });

  describe("listing and revoking", () => {
    it("lists pending requests without codes, and approved users", async () => {
      const aliceCode = issuedCode(await service.requestCode(alice));
      now += MINUTE;
      await service.requestCode(carol);
      await service.requestCode({ ...dave, platform: "slack", userId: "U4" });
      await service.approve("telegram", aliceCode);

      const all = await service.list();
      expect(all.pending).toEqual([
        { platform: "telegram", userId: "103", createdAt: START + MINUTE, expiresAt: START + MINUTE + HOUR },
        { platform: "slack", userId: "U4", userName: "Dave", createdAt: START + MINUTE, expiresAt: START + MINUTE + HOUR },
      ]);
      expect(all.approved).toEqual([{ platform: "telegram", userId: "101", userName: "Alice", approvedAt: START + MINUTE }]);
      expect(JSON.stringify(all)).not.toMatch(/salt|codeHash/);

      const slackOnly = await service.list("slack");
      expect(slackOnly.pending.map((request) => request.userId)).toEqual(["U4"]);
      expect(slackOnly.approved).toEqual([]);
    });

    it("leaves expired requests out of the list", async () => {
      await service.requestCode(alice);
      now += HOUR;
      expect((await service.list("telegram")).pending).toEqual([]);
    });

    it("revokes an approved user", async () => {
      await service.approve("telegram", issuedCode(await service.requestCode(alice)));
      expect(await service.revoke("telegram", "101")).toBe(true);
      expect(await store.isApproved("telegram", "101")).toBe(false);
      expect(await service.revoke("telegram", "101")).toBe(false);
      expect((await service.list()).approved).toEqual([]);
    });
  });
});
