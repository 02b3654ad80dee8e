import { afterEach, describe, expect, it } from "vitest";
import type { DeliveryClaimRequest } from "./deliveries.js";
import type { Store } from "./store.js";
import { STORE_DIALECTS, storeFixtures } from "./test-fixtures.js";
import type { DeliveryButton, NewDelivery } from "./types.js";

describe.each(STORE_DIALECTS)("%s", (dialect) => {
  const fixtures = storeFixtures(dialect);
  afterEach(() => fixtures.cleanup());

  const notice: NewDelivery = { platform: "telegram", chatId: "42", text: "Your pairing code is ABCD2345", kind: "notice" };
  const LEASE_MS = 30_000;
  const claimFor = (owner: string, platforms: string[] = ["telegram"], limit = 100): DeliveryClaimRequest => ({ owner, platforms, limit, leaseMs: LEASE_MS });

  /** Claims the given row for `owner` (it must be the head of its chat). */
  async function claimed(store: Store, owner: string, id: number): Promise<void> {
    const rows = await store.deliveries.claim(claimFor(owner, ["telegram", "slack", "discord"], 1000));
    expect(rows.map((row) => row.id)).toContain(id);
  }

  describe("deliveries", () => {
    it("enqueues a pending delivery with every field", async () => {
      const { store } = await fixtures.openNew();
      const { record } = await store.inbound.recordIfNew({ platform: "slack", messageId: "m1", payload: "{}", status: "queued" });
      const delivery = await store.deliveries.enqueue({
        inboundId: record.id,
        sessionKey: "agent:main:slack:channel:C1:T1",
        platform: "slack",
        chatId: "C1",
        threadId: "T1",
        replyToMessageId: "m1",
        text: "Done.",
        kind: "reply",
      });
      expect(delivery).toEqual({
        id: delivery.id,
        inboundId: record.id,
        sessionKey: "agent:main:slack:channel:C1:T1",
        platform: "slack",
        chatId: "C1",
        threadId: "T1",
        replyToMessageId: "m1",
        text: "Done.",
        kind: "reply",
        status: "pending",
        attempts: 0,
        lastError: undefined,
        createdAt: fixtures.now(),
        updatedAt: fixtures.now(),
        partsSent: 0,
        nextAttemptAt: undefined,
        claimOwner: undefined,
        claimExpiresAt: undefined,
      });
      expect(await store.deliveries.get(delivery.id)).toEqual(delivery);
      expect(await store.deliveries.get(delivery.id + 100)).toBeUndefined();
      const bare = await store.deliveries.enqueue(notice);
      expect(bare).toMatchObject({ inboundId: undefined, sessionKey: undefined, threadId: undefined, replyToMessageId: undefined });
    });

    it("keeps a delivery's buttons, in order and with their styles, through enqueue, claim and a finished run", async () => {
      const { store, file } = await fixtures.openNew();
      const buttons: DeliveryButton[] = [
        { label: "Approve", value: "/approve k3x9a2b7", style: "primary" },
        { label: "Approve for this conversation", value: "/approve k3x9a2b7 always" },
        { label: "Deny ✋", value: "/deny k3x9a2b7", style: "danger" },
      ];
      const prompt = await store.deliveries.enqueue({ ...notice, text: "Run terminal?", buttons });
      expect(prompt.buttons).toEqual(buttons);
      expect((await store.deliveries.get(prompt.id))?.buttons).toEqual(buttons);
      expect((await store.deliveries.pending()).map((row) => row.buttons)).toEqual([buttons]);
      expect((await store.deliveries.claim(claimFor("gateway"))).map((row) => row.buttons)).toEqual([buttons]);
      // No buttons and an empty row are both stored as none.
      const plain = await store.deliveries.enqueue({ ...notice, chatId: "43" });
      const empty = await store.deliveries.enqueue({ ...notice, chatId: "44", buttons: [] });
      expect(plain).not.toHaveProperty("buttons");
      expect(empty).not.toHaveProperty("buttons");

      const { session } = await store.sessions.getOrCreateActive({ key: "agent:main:telegram:dm:45", platform: "telegram", chatId: "45", chatType: "dm", userId: "45" });
      const { record } = await store.inbound.recordIfNew({ platform: "telegram", messageId: "m45", payload: "{}", sessionKey: session.key, status: "queued" });
      const finished = await store.completeRun({
        inboundId: record.id,
        sessionId: session.id,
        messages: [],
        deliveries: [{ platform: "telegram", chatId: "45", text: "Pick one", kind: "reply", buttons: [{ label: "Yes", value: "yes" }] }],
      });
      expect(finished).toMatchObject({ ok: true });
      expect((await store.deliveries.pending()).find((row) => row.inboundId === record.id)?.buttons).toEqual([{ label: "Yes", value: "yes" }]);

      // A row damaged by hand still goes out; what is not a button is left out.
      await fixtures.sql(file, `UPDATE deliveries SET buttons = '[{"label":"Ok","value":"ok","style":"loud"},{"label":3},"x"]' WHERE id = ${plain.id}`);
      await fixtures.sql(file, `UPDATE deliveries SET buttons = 'not json' WHERE id = ${empty.id}`);
      expect((await store.deliveries.get(plain.id))?.buttons).toEqual([{ label: "Ok", value: "ok" }]);
      expect(await store.deliveries.get(empty.id)).toMatchObject({ status: "pending", text: notice.text });
      expect(await store.deliveries.get(empty.id)).not.toHaveProperty("buttons");
    });

    it("lists pending deliveries oldest first and drops sent ones", async () => {
      const { store } = await fixtures.openNew();
      const first = await store.deliveries.enqueue({ ...notice, text: "one" });
      const second = await store.deliveries.enqueue({ ...notice, text: "two" });
      const third = await store.deliveries.enqueue({ ...notice, text: "three" });
      expect((await store.deliveries.pending()).map((d) => d.id)).toEqual([first.id, second.id, third.id]);
      expect((await store.deliveries.pending(2)).map((d) => d.id)).toEqual([first.id, second.id]);

      await claimed(store, "gateway", first.id);
      expect(await store.deliveries.markSent(first.id, "gateway")).toBe(true);
      expect((await store.deliveries.pending()).map((d) => d.id)).toEqual([second.id, third.id]);
    });

    it("counts pending deliveries in the database, without a limit, overall and per platform", async () => {
      const { store } = await fixtures.openNew();
      expect(await store.deliveries.countPending()).toBe(0);
      const sent = await store.deliveries.enqueue({ ...notice, chatId: "sent" });
      const failed = await store.deliveries.enqueue({ ...notice, chatId: "failed" });
      for (let i = 0; i < 120; i++) await store.deliveries.enqueue(notice);
      await store.deliveries.enqueue({ ...notice, platform: "console" });
      await claimed(store, "gateway", failed.id);
      await store.deliveries.markSent(sent.id, "gateway");
      await store.deliveries.recordFailure(failed.id, "gateway", "403 Forbidden", { final: true });
      expect(await store.deliveries.countPending()).toBe(121);
      expect(await store.deliveries.countPendingByPlatform()).toEqual({ telegram: 120, console: 1 });
    });

    it("counts failed attempts, keeps retryable ones pending until their retry time and gives up on final failures", async () => {
      const { store } = await fixtures.openNew();
      const delivery = await store.deliveries.enqueue(notice);
      await claimed(store, "gateway", delivery.id);
      fixtures.advance(1000);
      expect(await store.deliveries.recordFailure(delivery.id, "gateway", "connect ECONNRESET", { final: false, retryAt: fixtures.now() + 5000 })).toBe(true);
      expect(await store.deliveries.pending()).toEqual([
        { ...delivery, attempts: 1, lastError: "connect ECONNRESET", updatedAt: fixtures.now(), nextAttemptAt: fixtures.now() + 5000 },
      ]);
      expect(await store.deliveries.nextAttemptAt(["telegram"])).toBe(fixtures.now() + 5000);
      expect(await store.deliveries.claim(claimFor("gateway"))).toEqual([]);
      fixtures.advance(5000);
      await claimed(store, "gateway", delivery.id);
      expect(await store.deliveries.recordFailure(delivery.id, "gateway", "403 Forbidden: bot was blocked by the user", { final: true })).toBe(true);
      expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "failed", attempts: 2, claimOwner: undefined, nextAttemptAt: undefined });
      expect(await store.deliveries.pending()).toEqual([]);
    });

    it("tells how the last replies of a conversation ended, newest first, leaving out notices, other conversations and pending ones", async () => {
      const { store } = await fixtures.openNew();
      const key = "agent:main:cron:a1b2c3d4";
      const reply: NewDelivery = { platform: "telegram", chatId: "42", sessionKey: key, text: "pong", kind: "reply" };
      expect(await store.deliveries.lastFinalOutcomes(key, 3)).toEqual([]);
      /** Enqueues a delivery and sends it or gives it up (one at a time: only a chat's oldest pending row is claimed). */
      const settled = async (delivery: NewDelivery, error?: string): Promise<void> => {
        const row = await store.deliveries.enqueue(delivery);
        await claimed(store, "gateway", row.id);
        if (error === undefined) expect(await store.deliveries.markSent(row.id, "gateway")).toBe(true);
        else expect(await store.deliveries.recordFailure(row.id, "gateway", error, { final: true })).toBe(true);
      };
      await settled(reply, "400 Bad Request: chat not found");
      await settled(reply);
      await settled(reply, "403 Forbidden: bot was kicked from the group chat");
      await settled({ ...reply, kind: "notice" });
      await settled({ ...reply, sessionKey: "agent:main:cron:other001" });
      await store.deliveries.enqueue(reply);

      expect(await store.deliveries.lastFinalOutcomes(key, 3)).toEqual([
        { status: "failed", lastError: "403 Forbidden: bot was kicked from the group chat" },
        { status: "sent" },
        { status: "failed", lastError: "400 Bad Request: chat not found" },
      ]);
      expect(await store.deliveries.lastFinalOutcomes(key, 1)).toEqual([{ status: "failed", lastError: "403 Forbidden: bot was kicked from the group chat" }]);
      await expect(store.deliveries.lastFinalOutcomes(key, 0)).rejects.toThrow(RangeError);
    });
  });

  describe("delivery claims", () => {
    it("takes only the oldest pending row of each chat, oldest first, and only of the given platforms", async () => {
      const { store } = await fixtures.openNew();
      const a1 = await store.deliveries.enqueue({ ...notice, chatId: "a", text: "a1" });
      const b1 = await store.deliveries.enqueue({ ...notice, chatId: "b", text: "b1" });
      const a2 = await store.deliveries.enqueue({ ...notice, chatId: "a", text: "a2" });
      const slack = await store.deliveries.enqueue({ ...notice, platform: "slack", chatId: "a", text: "slack" });

      const first = await store.deliveries.claim(claimFor("gateway"));
      expect(first.map((row) => row.id)).toEqual([a1.id, b1.id]);
      expect(first[0]).toMatchObject({ claimOwner: "gateway", claimExpiresAt: fixtures.now() + LEASE_MS });
      // a2 waits behind a1 even though a1 is claimed: the chat sees its messages in order.
      expect(await store.deliveries.claim(claimFor("gateway"))).toEqual([]);

      await store.deliveries.markSent(a1.id, "gateway");
      expect((await store.deliveries.claim(claimFor("gateway"))).map((row) => row.id)).toEqual([a2.id]);
      expect((await store.deliveries.claim(claimFor("other", ["slack", "discord"]))).map((row) => row.id)).toEqual([slack.id]);
      expect(await store.deliveries.claim(claimFor("other", []))).toEqual([]);
    });

    it("keeps a chat's younger rows back behind a head that is deferred or held by another owner", async () => {
      const { store } = await fixtures.openNew();
      const a1 = await store.deliveries.enqueue({ ...notice, chatId: "a", text: "a1" });
      const a2 = await store.deliveries.enqueue({ ...notice, chatId: "a", text: "a2" });
      const elsewhere = await store.deliveries.enqueue({ ...notice, platform: "slack", chatId: "a", text: "same chat id, other platform" });

      expect((await store.deliveries.claim(claimFor("x"))).map((row) => row.id)).toEqual([a1.id]);
      expect(await store.deliveries.claim(claimFor("y"))).toEqual([]);
      expect(await store.deliveries.defer(a1.id, "x", fixtures.now() + 60_000)).toBe(true);
      expect(await store.deliveries.claim(claimFor("y"))).toEqual([]);
      expect((await store.deliveries.claim(claimFor("y", ["slack"]))).map((row) => row.id)).toEqual([elsewhere.id]);

      fixtures.advance(60_000);
      expect((await store.deliveries.claim(claimFor("y"))).map((row) => row.id)).toEqual([a1.id]);
      fixtures.advance(LEASE_MS);
      // y's lease ran out: x takes the head over, still not the row behind it.
      expect((await store.deliveries.claim(claimFor("x"))).map((row) => row.id)).toEqual([a1.id]);
      expect(await store.deliveries.markSent(a1.id, "x")).toBe(true);
      expect((await store.deliveries.claim(claimFor("y"))).map((row) => row.id)).toEqual([a2.id]);
    });

    it("respects the limit and a deferral, which is not an attempt", async () => {
      const { store } = await fixtures.openNew();
      const rows = [];
      for (let chat = 0; chat < 5; chat++) rows.push(await store.deliveries.enqueue({ ...notice, chatId: `c${chat}` }));
      expect((await store.deliveries.claim(claimFor("gateway", ["telegram"], 2))).map((row) => row.id)).toEqual([rows[0]?.id, rows[1]?.id]);

      const first = rows[0]?.id ?? 0;
      expect(await store.deliveries.defer(first, "gateway", fixtures.now() + 60_000)).toBe(true);
      expect(await store.deliveries.get(first)).toMatchObject({ attempts: 0, nextAttemptAt: fixtures.now() + 60_000, claimOwner: undefined });
      expect((await store.deliveries.claim(claimFor("gateway"))).map((row) => row.id)).toEqual(rows.slice(2).map((row) => row.id));
      for (const row of rows.slice(1)) await store.deliveries.markSent(row.id, "gateway");
      fixtures.advance(60_000);
      expect((await store.deliveries.claim(claimFor("gateway"))).map((row) => row.id)).toEqual([first]);
    });

    it("takes at most the limit asked for, whatever its size (each is its own statement)", async () => {
      const { store } = await fixtures.openNew();
      for (let chat = 0; chat < 75; chat++) await store.deliveries.enqueue({ ...notice, chatId: `c${chat}` });
      expect(await store.deliveries.claim(claimFor("a", ["telegram"], 3))).toHaveLength(3);
      expect(await store.deliveries.claim(claimFor("b", ["telegram"], 66))).toHaveLength(66);
      expect(await store.deliveries.claim(claimFor("c", ["telegram"], 3.9))).toHaveLength(3);
      expect(await store.deliveries.claim(claimFor("d", ["telegram"], 66))).toHaveLength(3);
      expect(await store.deliveries.claim(claimFor("e", ["telegram"], 66))).toEqual([]);
    });

    it("lets another owner take a row over once the lease ran out, and then ignores the first owner's writes", async () => {
      const { store } = await fixtures.openNew();
      const row = await store.deliveries.enqueue({ ...notice, text: "part one\n\npart two" });
      await claimed(store, "crashed", row.id);
      expect(await store.deliveries.markPartSent(row.id, "crashed", 1)).toBe(true);
      expect(await store.deliveries.claim(claimFor("successor"))).toEqual([]);

      fixtures.advance(LEASE_MS);
      const [takenOver] = await store.deliveries.claim(claimFor("successor"));
      expect(takenOver).toMatchObject({ id: row.id, claimOwner: "successor", partsSent: 1 });

      expect(await store.deliveries.markPartSent(row.id, "crashed", 2)).toBe(false);
      expect(await store.deliveries.renewClaim(row.id, "crashed", LEASE_MS)).toBe(false);
      expect(await store.deliveries.defer(row.id, "crashed", fixtures.now() + 1000)).toBe(false);
      expect(await store.deliveries.recordFailure(row.id, "crashed", "timeout", { final: true })).toBe(false);
      expect(await store.deliveries.markSent(row.id, "crashed")).toBe(false);
      expect(await store.deliveries.get(row.id)).toMatchObject({ status: "pending", partsSent: 1, attempts: 0, claimOwner: "successor" });

      expect(await store.deliveries.markSent(row.id, "successor")).toBe(true);
      expect(await store.deliveries.markSent(row.id, "successor")).toBe(false);
    });

    it("keeps a renewed claim past its first lease and frees released claims at once", async () => {
      const { store } = await fixtures.openNew();
      const held = await store.deliveries.enqueue({ ...notice, chatId: "held" });
      const released = await store.deliveries.enqueue({ ...notice, chatId: "released" });
      await store.deliveries.claim(claimFor("gateway"));
      fixtures.advance(LEASE_MS - 1);
      expect(await store.deliveries.renewClaim(held.id, "gateway", LEASE_MS)).toBe(true);
      fixtures.advance(1);
      expect(await store.deliveries.releaseClaims("other")).toBe(0);
      expect((await store.deliveries.claim(claimFor("other"))).map((row) => row.id)).toEqual([released.id]);
      expect(await store.deliveries.releaseClaims("other")).toBe(1);
      expect((await store.deliveries.claim(claimFor("third"))).map((row) => row.id)).toEqual([released.id]);
    });

    it("frees the claims others hold on the given platforms only, keeping the caller's own and other platforms'", async () => {
      const { store } = await fixtures.openNew();
      const crashed = await store.deliveries.enqueue({ ...notice, chatId: "crashed" });
      const own = await store.deliveries.enqueue({ ...notice, chatId: "own" });
      const consoleRow = await store.deliveries.enqueue({ ...notice, platform: "console", chatId: "terminal" });
      const unclaimed = await store.deliveries.enqueue({ ...notice, chatId: "unclaimed" });
      await store.deliveries.claim({ ...claimFor("crashed"), limit: 1 });
      await store.deliveries.claim({ ...claimFor("successor"), limit: 1 });
      await store.deliveries.claim(claimFor("chat", ["console"]));

      expect(await store.deliveries.releaseClaimsOfOthers("successor", [])).toBe(0);
      expect(await store.deliveries.releaseClaimsOfOthers("successor", ["telegram"])).toBe(1);
      expect(await store.deliveries.get(crashed.id)).toMatchObject({ status: "pending", claimOwner: undefined, claimExpiresAt: undefined });
      expect(await store.deliveries.get(own.id)).toMatchObject({ claimOwner: "successor" });
      expect(await store.deliveries.get(consoleRow.id)).toMatchObject({ claimOwner: "chat" });
      expect(await store.deliveries.get(unclaimed.id)).toMatchObject({ claimOwner: undefined });
      expect((await store.deliveries.claim(claimFor("successor"))).map((row) => row.id)).toEqual([crashed.id, unclaimed.id]);
    });

    it("never hands one row to two stores on the same database claiming at the same moment, and keeps each chat's order", async () => {
      const { store: gateway, file } = await fixtures.openNew();
      const chat = await fixtures.open(file);
      const ROWS = 200;
      for (let i = 0; i < ROWS; i++) await gateway.deliveries.enqueue({ ...notice, chatId: `c${i % 50}` });

      const taken: number[] = [];
      const takenPerChat = new Map<string, number[]>();
      const owners = [
        { store: gateway, owner: "gateway" },
        { store: chat, owner: "chat" },
      ];
      for (let round = 0; taken.length < ROWS && round < 100; round++) {
        const batches = await Promise.all(owners.map(({ store, owner }) => store.deliveries.claim(claimFor(owner, ["telegram"], 7))));
        for (const [index, batch] of batches.entries()) {
          const owner = owners[index];
          if (!owner) continue;
          for (const row of batch) {
            taken.push(row.id);
            takenPerChat.set(row.chatId, [...(takenPerChat.get(row.chatId) ?? []), row.id]);
            expect(await owner.store.deliveries.markSent(row.id, owner.owner)).toBe(true);
          }
        }
      }
      expect(taken).toHaveLength(ROWS);
      expect(new Set(taken).size).toBe(ROWS);
      // A chat's row is only taken once the one before it was sent.
      expect(takenPerChat.size).toBe(50);
      for (const ids of takenPerChat.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(await gateway.deliveries.countPending()).toBe(0);
    });
  });
});
