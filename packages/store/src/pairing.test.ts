import { afterEach, describe, expect, it } from "vitest";
import type { NewPairingRequest } from "./pairing.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  function request(userId: string, createdAt: number, overrides: Partial<NewPairingRequest> = {}): NewPairingRequest {
    return { platform: "telegram", userId, userName: `@${userId}`, chatId: userId, codeHash: `hash-${userId}`, salt: "salt", createdAt, expiresAt: createdAt + 3_600_000, ...overrides };
  }

  describe("pairing requests", () => {
    it("creates requests and lists the unexpired ones oldest first", async () => {
      const { store } = await fixtures.openNew();
      const late = await store.pairing.createRequest(request("u2", 2_000));
      const early = await store.pairing.createRequest(request("u1", 1_000));
      const expired = await store.pairing.createRequest(request("u3", 0, { expiresAt: 1_500 }));
      await store.pairing.createRequest(request("u4", 1_000, { platform: "discord" }));

      expect(early).toEqual({ id: early.id, ...request("u1", 1_000) });
      expect(await store.pairing.pendingRequests("telegram", 1_500)).toEqual([early, late]);
      expect(await store.pairing.pendingRequests("telegram", 1_499)).toEqual([expired, early, late]);
      expect(await store.pairing.pendingRequests("slack", 0)).toEqual([]);
    });

    it("finds a user's latest request, expired or not", async () => {
      const { store } = await fixtures.openNew();
      await store.pairing.createRequest(request("u1", 1_000));
      const latest = await store.pairing.createRequest(request("u1", 5_000, { codeHash: "newer", userName: undefined }));
      expect(await store.pairing.latestRequestForUser("telegram", "u1")).toEqual({ ...latest, userName: undefined });
      expect(await store.pairing.latestRequestForUser("telegram", "u2")).toBeUndefined();
    });

    it("deletes requests one by one and purges expired ones", async () => {
      const { store } = await fixtures.openNew();
      const first = await store.pairing.createRequest(request("u1", 1_000, { expiresAt: 2_000 }));
      await store.pairing.createRequest(request("u2", 1_000, { expiresAt: 3_000 }));
      const kept = await store.pairing.createRequest(request("u3", 1_000, { expiresAt: 9_000 }));
      expect(await store.pairing.deleteRequest(first.id)).toBe(true);
      expect(await store.pairing.deleteRequest(first.id)).toBe(false);
      expect(await store.pairing.purgeExpired(3_000)).toBe(1);
      expect(await store.pairing.pendingRequests("telegram", 0)).toEqual([kept]);
    });
  });

  describe("approved users", () => {
    it("approves, lists, re-approves and revokes users", async () => {
      const { store } = await fixtures.openNew();
      await store.pairing.approve({ platform: "telegram", userId: "u1", userName: "@one" }, 1_000);
      await store.pairing.approve({ platform: "discord", userId: "u1" }, 2_000);
      expect(await store.pairing.isApproved("telegram", "u1")).toBe(true);
      expect(await store.pairing.isApproved("telegram", "u2")).toBe(false);
      expect(await store.pairing.isApproved("slack", "u1")).toBe(false);

      expect(await store.pairing.listApproved()).toEqual([
        { platform: "telegram", userId: "u1", userName: "@one", approvedAt: 1_000 },
        { platform: "discord", userId: "u1", userName: undefined, approvedAt: 2_000 },
      ]);
      expect(await store.pairing.listApproved("discord")).toEqual([{ platform: "discord", userId: "u1", userName: undefined, approvedAt: 2_000 }]);

      await store.pairing.approve({ platform: "telegram", userId: "u1" }, 3_000);
      expect(await store.pairing.listApproved("telegram")).toEqual([{ platform: "telegram", userId: "u1", userName: "@one", approvedAt: 3_000 }]);

      expect(await store.pairing.revoke("telegram", "u1")).toBe(true);
      expect(await store.pairing.revoke("telegram", "u1")).toBe(false);
      expect(await store.pairing.isApproved("telegram", "u1")).toBe(false);
    });
  });

  describe("pairing failures", () => {
    it("counts failures per platform since a time and clears them", async () => {
      const { store } = await fixtures.openNew();
      await store.pairing.recordFailure("telegram", 1_000);
      await store.pairing.recordFailure("telegram", 2_000);
      await store.pairing.recordFailure("telegram", 3_000);
      await store.pairing.recordFailure("discord", 3_000);
      expect(await store.pairing.failuresSince("telegram", 2_000)).toBe(2);
      expect(await store.pairing.failuresSince("telegram", 0)).toBe(3);
      await store.pairing.clearFailures("telegram");
      expect(await store.pairing.failuresSince("telegram", 0)).toBe(0);
      expect(await store.pairing.failuresSince("discord", 0)).toBe(1);
    });
  });
});
