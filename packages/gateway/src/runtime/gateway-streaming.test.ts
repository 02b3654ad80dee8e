import { silentLogger } from "@hermes/agent";
import { describe, expect, it } from "vitest";
import { RecordingPacer } from "../outbound/delivery-testing.js";
import type { SendPacer } from "../outbound/pacer-types.js";
import { EditingFakeAdapter } from "../streaming/testing.js";
import { gatewayStreaming } from "./gateway-streaming.js";

/** A chat the platform asked to wait a long time: every wait lasts until it is aborted. */
class PausedPacer implements SendPacer {
  waiting = 0;

  acquire(_platform: string, _chatId: string, signal?: AbortSignal): Promise<void> {
    this.waiting += 1;
    return new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
  }

  tryAcquire(): boolean {
    return false;
  }

  pause(): void {}
}

function started(pacer: SendPacer, isActive: () => boolean = () => true) {
  const adapter = new EditingFakeAdapter({ platform: "telegram" });
  const streaming = gatewayStreaming({ interaction: { streaming: "edit", approval: { tools: [], timeoutMs: 300_000 } }, redisUrl: undefined }, silentLogger);
  if (!streaming) throw new Error("HERMES_STREAMING=edit must stream");
  const parts = new Map<number, string[]>();
  const store = {
    streamParts: {
      record: async (inboundId: number, part: number, messageId: string) => {
        const ids = parts.get(inboundId) ?? [];
        ids[part] = messageId;
        parts.set(inboundId, ids);
      },
      list: async (inboundId: number) => [...(parts.get(inboundId) ?? [])],
      clear: async (inboundId: number) => {
        parts.delete(inboundId);
      },
    },
  };
  const replies = streaming.start({ store, adapters: new Map([["telegram", adapter]]), pacer, isActive });
  const update = (text: string): void => streaming.sink({ inboundId: 1, platform: "telegram", chatId: "42", text });
  return { adapter, streaming, replies, update };
}

describe("gatewayStreaming", () => {
  it("stops at shutdown although a stream waits for a paused chat", async () => {
    const pacer = new PausedPacer();
    const { adapter, streaming, update } = started(pacer);
    update("Hello");
    await expect.poll(() => pacer.waiting).toBe(1);
    await streaming.close();
    expect(adapter.sends).toEqual([]);
  });

  it("hands the final delivery the streamed messages, also when it is tried again, and none once it is out", async () => {
    const { adapter, streaming, replies, update } = started(new RecordingPacer());
    update("Hello");
    await expect.poll(() => adapter.sends.length).toBe(1);
    expect(await replies.finish(1)).toEqual(["1"]);
    expect(await replies.finish(1)).toEqual(["1"]);
    await replies.clear(1);
    expect(await replies.finish(1)).toEqual([]);
    expect(await replies.stored(1)).toEqual([]);
    await streaming.close();
  });
});
