import { afterEach, describe, expect, it } from "vitest";
import type { PlatformAdapter } from "../core/adapter.js";
import { deliveryFixtures } from "../outbound/delivery-testing.js";
import { capturingLogger, FakeAdapter } from "../outbound/testing.js";
import { claimTakeover, createPlatformDuty, type PlatformDutyOptions } from "./platform-duty.js";

const fixtures = deliveryFixtures();
afterEach(() => fixtures.cleanup());

/** An adapter that, like the real ones, can start only once. */
function onceOnlyAdapter(platform: string, events: string[], name: string): PlatformAdapter {
  let used = false;
  return {
    platform,
    textLimit: 4096,
    start: async () => {
      if (used) throw new Error(`${name} started twice`);
      used = true;
      events.push(`start ${name}`);
    },
    stop: async () => void events.push(`stop ${name}`),
    send: async () => ({ ok: true, messageId: "1" }),
  };
}

function setUp(remake: boolean): { events: string[]; options: PlatformDutyOptions } {
  const events: string[] = [];
  let generation = 1;
  const options: PlatformDutyOptions = {
    adapters: new Map([["telegram", onceOnlyAdapter("telegram", events, "telegram#1")]]),
    ...(remake && { remakeAdapters: async () => [onceOnlyAdapter("telegram", events, `telegram#${(generation += 1)}`)] }),
    recover: async () => void events.push("recover"),
    delivery: { start: () => void events.push("delivery on"), stop: async () => void events.push("delivery off") },
    startAdapters: async (adapters) => {
      for (const adapter of adapters) await adapter.start({ receive: async () => undefined, reportStatus: () => undefined });
      return { settled: async () => undefined };
    },
    afterPutDown: () => void events.push("typing off"),
  };
  return { events, options };
}

describe("createPlatformDuty", () => {
  it("takes up delivery, recovery and the adapters, puts them down, and takes up again with fresh adapters", async () => {
    const { events, options } = setUp(true);
    const duty = createPlatformDuty(options);
    expect(duty.active).toBe(false);
    await duty.takeUp();
    expect(duty.active).toBe(true);
    await duty.putDown();
    expect(duty.active).toBe(false);
    await duty.takeUp();
    await duty.stopAdapters();
    expect(events).toEqual([
      "delivery on", "recover", "start telegram#1",
      "stop telegram#1", "delivery off", "typing off",
      "delivery on", "recover", "start telegram#2",
      "stop telegram#2",
    ]);
    expect(options.adapters.get("telegram")).toBeDefined();
  });

  it("does not stop adapters it never started (a standby shutting down)", async () => {
    const { events, options } = setUp(true);
    await createPlatformDuty(options).stopAdapters();
    expect(events).toEqual([]);
  });

  it("refuses to start the same adapters twice when it cannot make new ones", async () => {
    const { options } = setUp(false);
    const duty = createPlatformDuty(options);
    await duty.takeUp();
    await duty.putDown();
    await expect(duty.takeUp()).rejects.toThrow("cannot be started a second time");
  });
});

describe("claimTakeover", () => {
  it("sends at once a reply a dead gateway claimed mid-send, once the new one takes up the duty, and leaves console rows alone", async () => {
    const { store } = await fixtures.open();
    const caught = await fixtures.add(store, { text: "Caught mid-send." });
    const consoleRow = await fixtures.add(store, { platform: "console", chatId: "terminal", text: "For the terminal." });
    await store.deliveries.claim({ owner: "dead-gateway", platforms: ["fake"], limit: 10, leaseMs: 60_000 });
    await store.deliveries.claim({ owner: "terminal-chat", platforms: ["console"], limit: 10, leaseMs: 60_000 });

    const adapter = new FakeAdapter();
    const { service } = fixtures.service(store, [adapter]);
    const { logger, entries } = capturingLogger();
    const duty = createPlatformDuty({
      adapters: new Map([["fake", adapter]]),
      recover: async () => undefined,
      delivery: service,
      startAdapters: async () => ({ settled: async () => undefined }),
      takeOverClaims: claimTakeover({ deliveries: store.deliveries, owner: service.owner, platforms: () => ["fake", "console"], logger }),
    });
    await duty.takeUp();
    await service.flush();

    // The store's clock stands still: without the takeover the dead gateway's claim would hold the row for a minute.
    expect(adapter.delivered).toEqual(["Caught mid-send."]);
    expect(await store.deliveries.get(caught.id)).toMatchObject({ status: "sent" });
    expect(await store.deliveries.get(consoleRow.id)).toMatchObject({ status: "pending", claimOwner: "terminal-chat" });
    expect(entries.find((entry) => entry.msg === "took over deliveries another gateway had claimed")).toMatchObject({ count: 1, platforms: ["fake"] });
  });
});
