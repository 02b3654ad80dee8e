import { afterEach, describe, expect, it } from "vitest";
import { startRedis } from "../../../../test/support/redis-server.js";
import { waitUntil } from "../../../../test/support/wait-until.js";
import { closeRedis, openRedis } from "../queue/redis-connection.js";
import { capturingLogger } from "../outbound/testing.js";
import { parseStreamMessage, publishStreamUpdate, STREAM_CHANNEL, StreamListener } from "./stream-channel.js";
import { parseStreamUpdate, type StreamUpdate } from "./stream-update.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const update: StreamUpdate = { inboundId: 3, platform: "discord", chatId: "c1", threadId: "t", replyToMessageId: "m1", text: "Partial answer", status: "Running terminal…" };

describe("parseStreamUpdate", () => {
  it("reads a whole update and a minimal one", () => {
    expect(parseStreamUpdate(update)).toEqual(update);
    expect(parseStreamUpdate({ inboundId: 1, platform: "slack", chatId: "C1", text: "" })).toEqual({ inboundId: 1, platform: "slack", chatId: "C1", text: "" });
  });

  it("drops an empty status and fields it does not know", () => {
    expect(parseStreamUpdate({ inboundId: 1, platform: "slack", chatId: "C1", text: "a", status: "", extra: 5 })).toEqual({ inboundId: 1, platform: "slack", chatId: "C1", text: "a" });
  });

  it("rejects anything that is not an update", () => {
    const base = { inboundId: 1, platform: "slack", chatId: "C1", text: "a" };
    for (const value of [
      null,
      undefined,
      "text",
      7,
      [base],
      {},
      { ...base, inboundId: 0 },
      { ...base, inboundId: 1.5 },
      { ...base, inboundId: "1" },
      { ...base, platform: "" },
      { ...base, chatId: 42 },
      { ...base, text: undefined },
      { ...base, threadId: 7 },
      { ...base, replyToMessageId: null },
      { ...base, status: false },
    ]) {
      expect(parseStreamUpdate(value)).toBeUndefined();
    }
  });

  it("rejects malformed channel messages", () => {
    for (const raw of ["", "not json", "null", "[]", '"s"', "{}"]) expect(parseStreamMessage(raw)).toBeUndefined();
  });
});

describe("StreamListener on a real Redis", () => {
  it("hears updates published on the stream channel and ignores malformed ones with a warning", async () => {
    const redis = await startRedis();
    closers.push(() => redis.stop());
    const { logger, entries } = capturingLogger();
    const heard: StreamUpdate[] = [];
    const listener = new StreamListener(redis.url, (received) => heard.push(received), logger);
    closers.push(() => listener.close());
    await listener.ready;
    const publisher = openRedis(redis.url, { name: "test-publisher" }, logger);
    closers.push(() => closeRedis(publisher));

    await publisher.publish(STREAM_CHANNEL, "{not json");
    await publisher.publish(STREAM_CHANNEL, JSON.stringify({ inboundId: "x" }));
    await publisher.publish("hermes:other", JSON.stringify(update));
    await publishStreamUpdate(publisher, update);
    await waitUntil(() => heard.length > 0, "the stream update");

    expect(heard).toEqual([update]);
    expect(entries.filter((entry) => entry.msg === "ignored malformed stream update")).toHaveLength(2);
  });
});
