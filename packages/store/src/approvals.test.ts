import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "./store.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { NewApproval } from "./types.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const KEY = "agent:main:telegram:group:-100";
  const MINUTE = 60_000;

  function approval(id: string, overrides: Partial<NewApproval> = {}): NewApproval {
    const now = fixtures.now();
    return {
      id,
      inboundId: 1,
      sessionKey: KEY,
      sessionId: "session-a",
      platform: "telegram",
      chatId: "-100",
      requesterId: "42",
      tool: "terminal",
      summary: "rm -rf build/",
      createdAt: now,
      expiresAt: now + 5 * MINUTE,
      ...overrides,
    };
  }

  async function created(store: Store, id: string, overrides: Partial<NewApproval> = {}): Promise<NewApproval> {
    const input = approval(id, overrides);
    await store.approvals.create(input);
    return input;
  }

  describe("approvals", () => {
    it("stores every field of a new approval as pending, without a decision", async () => {
      const { store } = await fixtures.openNew();
      const threaded = await created(store, "a1b2c3d4", { threadId: "77", platform: "slack", chatId: "C1" });
      const plain = await created(store, "z9y8x7w6v5u4");
      expect(await store.approvals.get("a1b2c3d4")).toEqual({ ...threaded, status: "pending" });
      const stored = await store.approvals.get("z9y8x7w6v5u4");
      expect(stored).toEqual({ ...plain, status: "pending" });
      for (const field of ["threadId", "scope", "decidedBy", "decidedAt"]) expect(stored).not.toHaveProperty(field);
      expect(await store.approvals.get("nothere1")).toBeUndefined();
    });

    it("refuses an id a person could not type back or a button could not carry", async () => {
      const { store } = await fixtures.openNew();
      for (const id of ["short", "UPPERCASE1", "has-dash1", "thirteenchars"]) {
        await expect(store.approvals.create(approval(id))).rejects.toThrow(RangeError);
        expect(await store.approvals.get(id)).toBeUndefined();
      }
    });

    it("decides a pending approval once: a second decision changes nothing", async () => {
      const { store } = await fixtures.openNew();
      const input = await created(store, "a1b2c3d4");
      const decidedAt = fixtures.now() + MINUTE;
      expect(await store.approvals.decide("a1b2c3d4", { status: "approved", scope: "session", decidedBy: "42", decidedAt })).toBe(true);
      expect(await store.approvals.decide("a1b2c3d4", { status: "denied", decidedBy: "42", decidedAt: decidedAt + 1 })).toBe(false);
      expect(await store.approvals.decide("a1b2c3d4", { status: "expired", decidedAt: decidedAt + 2 })).toBe(false);
      expect(await store.approvals.get("a1b2c3d4")).toEqual({ ...input, status: "approved", scope: "session", decidedBy: "42", decidedAt });
      expect(await store.approvals.decide("nothere1", { status: "denied", decidedAt })).toBe(false);
    });

    it("lets one of two decisions at the same moment win, on one store and on two stores of one database", async () => {
      const { store, file } = await fixtures.openNew();
      const other = await fixtures.open(file);
      for (const [index, stores] of [[store, store], [store, other]].entries()) {
        const id = `race000${index}`;
        await created(store, id);
        const decidedAt = fixtures.now();
        const outcomes = await Promise.all([
          stores[0]?.approvals.decide(id, { status: "approved", scope: "once", decidedBy: "42", decidedAt }),
          stores[1]?.approvals.decide(id, { status: "denied", decidedBy: "42", decidedAt }),
        ]);
        expect(outcomes.filter((won) => won === true)).toHaveLength(1);
        const stored = await other.approvals.get(id);
        expect(stored?.status).toBe(outcomes[0] === true ? "approved" : "denied");
      }
    });

    it("approves or denies nothing past its expiry; the run may still mark it expired", async () => {
      const { store } = await fixtures.openNew();
      const input = await created(store, "late0001");
      expect(await store.approvals.decide("late0001", { status: "approved", decidedBy: "42", decidedAt: input.expiresAt })).toBe(false);
      expect(await store.approvals.decide("late0001", { status: "denied", decidedBy: "42", decidedAt: input.expiresAt + 1 })).toBe(false);
      expect(await store.approvals.get("late0001")).toMatchObject({ status: "pending" });
      expect(await store.approvals.decide("late0001", { status: "expired", decidedAt: input.expiresAt })).toBe(true);
      expect(await store.approvals.get("late0001")).toMatchObject({ status: "expired", decidedAt: input.expiresAt });
    });

    it("finds the session key's newest pending approval, leaving out decided, expired and other sessions' ones", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      expect(await store.approvals.latestPending(KEY, now)).toBeUndefined();
      const older = await created(store, "older001", { createdAt: now - 2 * MINUTE });
      await created(store, "expired1", { createdAt: now - MINUTE, expiresAt: now });
      await created(store, "decided1", { createdAt: now });
      await store.approvals.decide("decided1", { status: "denied", decidedBy: "42", decidedAt: now });
      await created(store, "othersess", { createdAt: now + MINUTE, sessionKey: "agent:main:telegram:dm:42" });
      expect(await store.approvals.latestPending(KEY, now)).toEqual({ ...older, status: "pending" });

      const newer = await created(store, "newer001", { createdAt: now + MINUTE });
      expect(await store.approvals.latestPending(KEY, now + MINUTE)).toEqual({ ...newer, status: "pending" });
      // Past every expiry, nothing is pending any more.
      expect(await store.approvals.latestPending(KEY, now + 10 * MINUTE)).toBeUndefined();
      expect(await store.approvals.latestPending("agent:main:telegram:dm:42", now)).toMatchObject({ id: "othersess" });
    });

    it("grants a tool for a session only through an approval for the whole conversation of that session", async () => {
      const { store } = await fixtures.openNew();
      const now = fixtures.now();
      expect(await store.approvals.grantedForSession("session-a", "terminal", "42")).toBe(false);
      await created(store, "once0001");
      await store.approvals.decide("once0001", { status: "approved", scope: "once", decidedBy: "42", decidedAt: now });
      await created(store, "denied01");
      await store.approvals.decide("denied01", { status: "denied", scope: "session", decidedBy: "42", decidedAt: now });
      await created(store, "pending1");
      expect(await store.approvals.grantedForSession("session-a", "terminal", "42")).toBe(false);

      await created(store, "always01");
      await store.approvals.decide("always01", { status: "approved", scope: "session", decidedBy: "42", decidedAt: now });
      expect(await store.approvals.grantedForSession("session-a", "terminal", "42")).toBe(true);
      expect(await store.approvals.grantedForSession("session-a", "write_file", "42")).toBe(false);
      expect(await store.approvals.grantedForSession("session-b", "terminal", "42")).toBe(false);
    });

    it("grants for the conversation only the calls of the person who approved, in a session several people share", async () => {
      const { store } = await fixtures.openNew();
      await created(store, "always42", { requesterId: "42" });
      await store.approvals.decide("always42", { status: "approved", scope: "session", decidedBy: "42", decidedAt: fixtures.now() });
      expect(await store.approvals.grantedForSession("session-a", "terminal", "42")).toBe(true);
      expect(await store.approvals.grantedForSession("session-a", "terminal", "43")).toBe(false);
    });
  });
});
