import type { Client } from "discord.js";
import { describe, expect, it } from "vitest";
import type { Logger } from "@hermes/agent";
import { guardPacketHandling } from "./packet-guard.js";

function warnings(): { logger: Logger; seen: Array<[string, Record<string, unknown> | undefined]> } {
  const seen: Array<[string, Record<string, unknown> | undefined]> = [];
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => void seen.push([message, fields]),
    error: () => undefined,
    child: () => logger,
  };
  return { logger, seen };
}

/** Just the packet handler of discord.js's WebSocketManager, which the guard wraps. */
function clientWith(handlePacket: (packet?: unknown) => boolean): Client {
  return { ws: { handlePacket } } as unknown as Client;
}

describe("guardPacketHandling", () => {
  it("drops a packet discord.js throws on, naming its event, and keeps handling the next ones", () => {
    const handled: unknown[] = [];
    const client = clientWith((packet) => {
      if ((packet as { d: { author: unknown } }).d.author === null) throw new TypeError("Cannot read properties of null (reading 'id')");
      handled.push(packet);
      return true;
    });
    const { logger, seen } = warnings();
    guardPacketHandling(client, logger);
    const ws = client.ws as unknown as { handlePacket(packet: unknown): boolean };

    expect(ws.handlePacket({ t: "MESSAGE_CREATE", d: { author: null } })).toBe(false);
    expect(ws.handlePacket({ t: "MESSAGE_CREATE", d: { author: { id: "1" } } })).toBe(true);
    expect(seen).toEqual([["a Discord gateway event could not be read; dropped", { event: "MESSAGE_CREATE", error: new TypeError("Cannot read properties of null (reading 'id')") }]]);
    expect(handled).toEqual([{ t: "MESSAGE_CREATE", d: { author: { id: "1" } } }]);
  });

  it("copes with packets that are not even objects", () => {
    const { logger, seen } = warnings();
    const client = clientWith(() => {
      throw new Error("junk");
    });
    guardPacketHandling(client, logger);
    (client.ws as unknown as { handlePacket(packet: unknown): boolean }).handlePacket(null);
    expect(seen).toEqual([["a Discord gateway event could not be read; dropped", { event: undefined, error: new Error("junk") }]]);
  });
});
