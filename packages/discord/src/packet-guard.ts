import type { Client } from "discord.js";
import type { Logger } from "@hermes/agent";

/** The part of discord.js's WebSocketManager that turns a gateway packet into its objects and events. */
interface PacketHandling {
  handlePacket(packet?: unknown, shard?: unknown): boolean;
}

/**
 * discord.js builds its objects from each gateway packet without checking it: a MESSAGE_CREATE without an id or with
 * a null author throws inside its websocket listener, which escapes as an uncaught error (ending the process) and
 * stops the events behind it. The packet handler is wrapped so that such a packet is logged and dropped instead.
 */
export function guardPacketHandling(client: Client, logger: Logger): void {
  const manager = client.ws as unknown as PacketHandling;
  const handlePacket = manager.handlePacket.bind(manager);
  manager.handlePacket = (packet, shard) => {
    try {
      return handlePacket(packet, shard);
    } catch (error) {
      logger.warn("a Discord gateway event could not be read; dropped", { event: eventName(packet), error });
      return false;
    }
  };
}

function eventName(packet: unknown): string | undefined {
  if (typeof packet !== "object" || packet === null || !("t" in packet)) return undefined;
  return typeof packet.t === "string" ? packet.t : undefined;
}
