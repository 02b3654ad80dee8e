import { afterEach, describe, expect, it, vi } from "vitest";
import type { SendResult } from "../core/adapter.js";
import { deliveryFixtures, RecordingPacer } from "./delivery-testing.js";
import type { SendPacer } from "./pacer-types.js";
import { FakeAdapter, gate, type SendCall } from "./testing.js";

const CONNECTION_LOST = { ok: false, retryable: true, error: "connect ECONNRESET" } as const;
const FLOOD_CONTROL = { ok: false, retryable: true, error: "Too Many Requests: retry after 60", retryAfterMs: 60_000 } as const;
// Four parts of at most 30 characters each.
const FOUR_PARTS = "first part of the reply.\n\nsecond part of it.\n\nthird part of it.\n\nfourth part of it.";
const partNumbers = (calls: readonly SendCall[]): string[] => calls.map((call) => call.message.idempotencyKey ?? "none");

const fixtures = deliveryFixtures();
afterEach(() => fixtures.cleanup());

describe("per-chat lanes", () => {
  it("sends another chat's replies in the same flush while one chat waits out flood control", async () => {
    const adapter = new FakeAdapter({ respond: (call): SendResult => (call.target.chatId === "A" ? FLOOD_CONTROL : { ok: true }) });
    const pacer = new RecordingPacer();
    const { store } = await fixtures.open();
    const { service, sleeps, entries } = fixtures.service(store, [adapter], { pacer });
    const limited = await fixtures.add(store, { text: "to A", chatId: "A" });
    for (const text of ["B one", "B two", "B three"]) await fixtures.add(store, { text, chatId: "B" });

    expect(await service.flush()).toEqual({ sent: 3, failed: 0 });
    expect(adapter.delivered).toEqual(["B one", "B two", "B three"]);
    expect(adapter.sends.filter((call) => call.target.chatId === "A")).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(pacer.pauses).toEqual([{ platform: "fake", chatId: "A", ms: 60_000 }]);
    expect(pacer.acquired.filter((chat) => chat === "fake/B")).toHaveLength(3);
    expect(await store.deliveries.get(limited.id)).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: fixtures.now() + 60_000, claimOwner: undefined });
    expect(entries).toContainEqual(expect.objectContaining({ level: "info", msg: "rate limited; the delivery waits", chatId: "A", retryAfterMs: 60_000 }));
  });

  it("does not count rate-limit deferrals as attempts, but gives a delivery up once it is older than the bound", async () => {
    const adapter = new FakeAdapter({ respond: (call): SendResult => (call.message.format === "plain" && call.message.idempotencyKey?.endsWith("n") ? { ok: true } : FLOOD_CONTROL) });
    const { store } = await fixtures.open();
    const { service, outcomes } = fixtures.service(store, [adapter], { maxDeliveryAttempts: 2, maxDeliveryAgeMs: 3 * 60_000 });
    const delivery = await fixtures.add(store, { text: "hello" });

    for (let flush = 0; flush < 3; flush++) {
      expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
      fixtures.advance(60_000);
    }
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "pending", attempts: 0 });
    expect(await service.flush()).toEqual({ sent: 0, failed: 1 });
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "failed", lastError: expect.stringContaining("still rate limited") });
    expect(adapter.sends.at(-1)?.message.text).toBe("Sorry, I couldn't deliver my reply (the chat service kept asking to wait). Please try again.");
    expect(outcomes).toEqual([[delivery.id, "failed"]]);
  });
});

describe("resuming a multi-part reply", () => {
  it("resumes at the first unsent part in a new service after part 2 of 4 failed", async () => {
    const { store, file } = await fixtures.open();
    const before = new FakeAdapter({ textLimit: 30 });
    before.respondNext({ ok: true }, CONNECTION_LOST);
    const delivery = await fixtures.add(store, { text: FOUR_PARTS });
    expect(await fixtures.service(store, [before], { maxAttempts: 1 }).service.flush()).toEqual({ sent: 0, failed: 0 });
    expect(partNumbers(before.sends)).toEqual([`d${delivery.id}p1`, `d${delivery.id}p2`]);

    // The process restarts: a new store handle and service, nothing remembered in memory.
    const { store: reopened } = await fixtures.open(file);
    const after = new FakeAdapter({ textLimit: 30 });
    fixtures.advance(60_000);
    expect(await fixtures.service(reopened, [after]).service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(after.sends.map((call) => call.message.text)).toEqual(["second part of it.\n(2/4)", "third part of it.\n(3/4)", "fourth part of it.\n(4/4)"]);
    expect(partNumbers(after.sends)).toEqual([`d${delivery.id}p2`, `d${delivery.id}p3`, `d${delivery.id}p4`]);
  });

  it("takes over from a process that died mid-reply once its lease ran out, and the old one sends nothing more", async () => {
    const { store, file } = await fixtures.open();
    const hung = gate();
    const dying = new FakeAdapter({ textLimit: 30 });
    dying.respondNext({ ok: true }, { ok: true }, async () => (await hung.promise, { ok: true }));
    const delivery = await fixtures.add(store, { text: FOUR_PARTS });
    const dyingFlush = fixtures.service(store, [dying], { leaseMs: 30_000 }).service.flush();
    await vi.waitFor(() => expect(dying.sends).toHaveLength(3));

    const { store: successorStore } = await fixtures.open(file);
    const successor = new FakeAdapter({ textLimit: 30 });
    const { service } = fixtures.service(successorStore, [successor], { leaseMs: 30_000 });
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    fixtures.advance(30_000);
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });
    expect(partNumbers(successor.sends)).toEqual([`d${delivery.id}p3`, `d${delivery.id}p4`]);

    hung.open();
    expect(await dyingFlush).toEqual({ sent: 0, failed: 0 });
    expect(partNumbers(dying.sends)).toEqual([`d${delivery.id}p1`, `d${delivery.id}p2`, `d${delivery.id}p3`]);
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "sent" });
  });

  it("keeps the same idempotency key for a part over every attempt, flush and process", async () => {
    const { store, file } = await fixtures.open();
    const first = new FakeAdapter({ textLimit: 30 });
    first.respondNext({ ok: true }, CONNECTION_LOST, CONNECTION_LOST);
    const delivery = await fixtures.add(store, { text: FOUR_PARTS });
    await fixtures.service(store, [first], { maxAttempts: 2 }).service.flush();
    const { store: reopened } = await fixtures.open(file);
    const second = new FakeAdapter({ textLimit: 30 });
    second.respondNext({ ok: false, retryable: true, error: "timeout after the request was sent", ambiguous: true });
    fixtures.advance(60_000);
    const { service, entries } = fixtures.service(reopened, [second]);
    expect(await service.flush()).toEqual({ sent: 1, failed: 0 });

    const key = `d${delivery.id}p2`;
    expect(partNumbers(first.sends)).toEqual([`d${delivery.id}p1`, key, key]);
    expect(partNumbers(second.sends)).toEqual([key, key, `d${delivery.id}p3`, `d${delivery.id}p4`]);
    expect(entries).toContainEqual(expect.objectContaining({ level: "warn", idempotencyKey: key, msg: expect.stringContaining("twice") }));
  });

  it("renews its claim while a long reply goes out, so nobody takes it over", async () => {
    const { store, file } = await fixtures.open();
    const held = gate();
    const slow = new FakeAdapter({ respond: async () => (await held.promise, { ok: true }) });
    const delivery = await fixtures.add(store, { text: "slow" });
    const flush = fixtures.service(store, [slow], { leaseMs: 30 }).service.flush();
    await vi.waitFor(() => expect(slow.sends).toHaveLength(1));
    const claimedUntil = (await store.deliveries.get(delivery.id))?.claimExpiresAt ?? 0;
    fixtures.advance(1_000);
    await vi.waitFor(async () => expect((await store.deliveries.get(delivery.id))?.claimExpiresAt).toBeGreaterThan(claimedUntil + 1_000 - 30));

    const { store: other } = await fixtures.open(file);
    const rival = new FakeAdapter();
    expect(await fixtures.service(other, [rival]).service.flush()).toEqual({ sent: 0, failed: 0 });
    held.open();
    expect(await flush).toEqual({ sent: 1, failed: 0 });
    expect(rival.sends).toEqual([]);
  });
});

describe("several processes on one database", () => {
  it("never send one delivery twice (200 deliveries, two services)", async () => {
    const { store, file } = await fixtures.open();
    const { store: second } = await fixtures.open(file);
    const order: string[] = [];
    const adapters = [0, 1].map(() => new FakeAdapter({ respond: async (call) => (await new Promise((resolve) => setImmediate(resolve)), order.push(call.message.text), { ok: true }) }));
    for (let i = 0; i < 200; i++) await fixtures.add(store, { text: `${i % 20}:${i}`, chatId: `c${i % 20}` });
    const services = [fixtures.service(store, [adapters[0] ?? new FakeAdapter()]).service, fixtures.service(second, [adapters[1] ?? new FakeAdapter()]).service];

    for (let round = 0; round < 5 && (await store.deliveries.countPending()) > 0; round++) await Promise.all(services.map((service) => service.flush()));
    const keys = adapters.flatMap((adapter) => partNumbers(adapter.sends));
    expect(keys).toHaveLength(200);
    for (const adapter of adapters) expect(adapter.sends.length).toBeGreaterThan(0);
    expect(new Set(keys).size).toBe(200);
    expect(await store.deliveries.countPending()).toBe(0);
    for (let chat = 0; chat < 20; chat++) {
      const sequence = order.filter((text) => text.startsWith(`${chat}:`)).map((text) => Number(text.split(":")[1]));
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
    }
  });

  it("leaves another platform's rows pending and untouched, and says so once at start", async () => {
    const { store } = await fixtures.open();
    const telegram = await fixtures.add(store, { text: "for telegram", platform: "telegram", chatId: "100" });
    await fixtures.add(store, { text: "for the terminal", platform: "console", chatId: "local" });
    const consoleAdapter = new FakeAdapter({ platform: "console" });
    const schedule = () => () => undefined;
    const { service, entries } = fixtures.service(store, [consoleAdapter], { schedule });
    service.start(1000);
    await vi.waitFor(() => expect(consoleAdapter.delivered).toEqual(["for the terminal"]));
    expect(await service.flush()).toEqual({ sent: 0, failed: 0 });
    await service.stop();

    expect(await store.deliveries.get(telegram.id)).toEqual(telegram);
    const notices = entries.filter((entry) => entry.msg.startsWith("pending deliveries for platforms not run here"));
    expect(notices).toEqual([expect.objectContaining({ level: "info", pending: 1, platforms: { telegram: 1 } })]);
  });

  it("gives its claims back when it stops during a pacer wait, sending nothing", async () => {
    const { store } = await fixtures.open();
    const adapter = new FakeAdapter();
    const waiting = gate();
    const pacer: SendPacer = {
      acquire: (_platform, _chat, signal) =>
        new Promise((_resolve, reject) => {
          waiting.open();
          signal?.addEventListener("abort", () => reject(new Error("stopping")));
        }),
      tryAcquire: () => true,
      pause: () => undefined,
    };
    const delivery = await fixtures.add(store, { text: "hi" });
    const { service } = fixtures.service(store, [adapter], { pacer });
    const flush = service.flush();
    await waiting.promise;
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ claimOwner: service.owner });
    await service.stop();
    expect(await flush).toEqual({ sent: 0, failed: 0 });
    expect(adapter.sends).toEqual([]);
    expect(await store.deliveries.get(delivery.id)).toMatchObject({ status: "pending", attempts: 0, claimOwner: undefined });
  });
});
