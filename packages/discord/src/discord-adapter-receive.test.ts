import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { AbortableSleep, InboundMessage, PlatformAdapter } from "@hermes/gateway";
import { startDiscordFake, type DiscordFake } from "../../../test/fakes/discord/index.js";
import { createDiscordAdapter, LOST_MESSAGE_NOTICE } from "./discord-adapter.js";

let fake: DiscordFake;
let adapter: PlatformAdapter | undefined;
let errors: { message: string; fields?: Record<string, unknown> }[];
/** vi.waitFor gives up after 1 s by default; a loaded machine can take longer to pass a message through the fake. */
const SLOW_MACHINE = { timeout: 15_000, interval: 20 };

const logger: Logger = {
  ...silentLogger,
  error: (message, fields) => void errors.push({ message, ...(fields ? { fields } : {}) }),
  child: () => logger,
};

beforeEach(async () => {
  fake = await startDiscordFake();
  errors = [];
});

afterEach(async () => {
  await adapter?.stop();
  adapter = undefined;
  await fake.close();
});

/** A gateway whose store fails the first `failures` saves. */
function flakyGateway(failures: number): { receive: (message: InboundMessage) => Promise<void>; saved: string[] } {
  const saved: string[] = [];
  let calls = 0;
  return {
    saved,
    receive: async (message) => {
      calls += 1;
      if (calls <= failures) throw new Error("database is locked");
      saved.push(message.text);
    },
  };
}

async function startAdapter(receive: (message: InboundMessage) => Promise<void>, sleep: AbortableSleep): Promise<PlatformAdapter> {
  // Waits for the session however slow the machine: the tests post messages right after start().
  const started = createDiscordAdapter({ token: fake.token, apiUrl: fake.apiUrl }, { logger, attachmentsDir: "/nonexistent", sleep, connectTimeoutMs: 20_000 });
  adapter = started;
  await started.start({ receive, reportStatus: () => undefined });
  return started;
}

describe("Discord adapter handing messages to the gateway", () => {
  it("retries a message the gateway failed to save, keeping the channel's order, without bothering the user", async () => {
    const pauses: number[] = [];
    const gateway = flakyGateway(2);
    await startAdapter(gateway.receive, async (ms) => void pauses.push(ms));
    const ada = fake.addUser("ada");
    fake.postDm(ada, "one");
    fake.postDm(ada, "two");
    await vi.waitFor(() => expect(gateway.saved).toEqual(["one", "two"]), SLOW_MACHINE);
    expect(pauses).toEqual([500, 1000]);
    expect(fake.sent).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("asks the user to send it again once it gives up, but stays quiet about unaddressed guild chatter", async () => {
    const gateway = flakyGateway(Number.POSITIVE_INFINITY);
    await startAdapter(gateway.receive, async () => undefined);
    const general = fake.addGuild({ name: "Lab", channels: ["general"] }).channels.general ?? "";
    const ada = fake.addUser("ada");
    fake.postMessage(general, ada, "just chatting");
    const dm = fake.postDm(ada, "please remember this");
    const [notice] = await fake.waitForSent(1);
    await vi.waitFor(() => expect(errors.filter((e) => e.message === "could not hand a Discord message to the gateway")).toHaveLength(2), SLOW_MACHINE);
    await adapter?.stop();

    expect(notice).toMatchObject({ channelId: dm.channelId, replyTo: dm.id, content: LOST_MESSAGE_NOTICE });
    expect(fake.sent).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ reason: "gave up", attempts: 12, error: "database is locked" });
  });

  it("stops retrying when the adapter stops, and still tells the user", async () => {
    const pauses: number[] = [];
    const gateway = flakyGateway(Number.POSITIVE_INFINITY);
    const untilStopped: AbortableSleep = (ms, signal) => {
      pauses.push(ms);
      return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    };
    const started = await startAdapter(gateway.receive, untilStopped);
    const dm = fake.postDm(fake.addUser("ada"), "hello?");
    await vi.waitFor(() => expect(pauses).toEqual([500]), SLOW_MACHINE);
    await started.stop();

    expect(fake.sent.map((m) => [m.channelId, m.replyTo, m.content])).toEqual([[dm.channelId, dm.id, LOST_MESSAGE_NOTICE]]);
    expect(errors[0]?.fields).toMatchObject({ reason: "stopping", attempts: 1 });
  });
});
