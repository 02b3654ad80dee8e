import { describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "@hermes/agent";
import type { AdapterContext, InboundMessage } from "@hermes/gateway";
import { mayFetchFiles } from "./file-gate.js";

function withFiles(count: number): InboundMessage {
  return {
    platform: "discord",
    chat: { id: "c1", type: "dm" },
    user: { id: "u1" },
    messageId: "m1",
    text: "look",
    attachments: Array.from({ length: count }, () => ({ kind: "document" as const, name: "notes.txt" })),
    mentionedBot: true,
    timestamp: 0,
  };
}

function contextWith(gate?: AdapterContext["mayFetchFiles"]): AdapterContext {
  return { receive: async () => undefined, reportStatus: () => undefined, ...(gate ? { mayFetchFiles: gate } : {}) };
}

describe("Discord's use of the gateway's file gate", () => {
  it("follows the gate; asks nothing for a message without files; fetches when the gateway has no gate", async () => {
    const asked: string[] = [];
    const gate = async (message: InboundMessage) => {
      asked.push(message.messageId);
      return false;
    };
    expect(await mayFetchFiles(withFiles(1), contextWith(gate), silentLogger)).toBe(false);
    expect(await mayFetchFiles(withFiles(0), contextWith(gate), silentLogger)).toBe(true);
    expect(asked).toEqual(["m1"]);
    expect(await mayFetchFiles(withFiles(1), contextWith(), silentLogger)).toBe(true);
  });

  it("lists the files (Discord sends no event twice) and warns when the gate cannot answer", async () => {
    const warnings: string[] = [];
    const logger: Logger = { ...silentLogger, warn: (message) => void warnings.push(message), child: () => logger };
    const away = contextWith(() => Promise.reject(new Error("database unreachable")));
    expect(await mayFetchFiles(withFiles(2), away, logger)).toBe(false);
    expect(warnings).toEqual(["could not tell whether a Discord message's files may be fetched; they are listed only"]);
  });
});
