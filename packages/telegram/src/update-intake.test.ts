import { describe, expect, it } from "vitest";
import type { InboundMessage } from "@hermes/gateway";
import type { Update } from "grammy/types";
import { recordingLogger } from "./recording-logger.js";
import { createUpdateHandler } from "./update-intake.js";

const group = { id: -100, type: "group", title: "Friends" };
const ada = { id: 7, is_bot: false, first_name: "Ada" };
const photo = [{ file_id: "p1", file_unique_id: "u", width: 10, height: 10, file_size: 10 }];

function setup(mayFetchFiles?: (message: InboundMessage) => Promise<boolean>) {
  const received: InboundMessage[] = [];
  const downloads: string[] = [];
  const logger = recordingLogger();
  const handle = createUpdateHandler({
    bot: { id: 4242, username: "hermes_bot" },
    receive: async (message) => void received.push(message),
    attachmentsDir: "/attachments",
    maxAttachmentBytes: 1000,
    download: async (fileId, destination) => {
      downloads.push(`${fileId} ${destination}`);
      return { ok: true, sizeBytes: 10 };
    },
    answerCallback: async () => {},
    logger,
    ...(mayFetchFiles ? { mayFetchFiles } : {}),
  });
  return { handle, received, downloads, logger };
}

function update(message: Record<string, unknown>): Update {
  return { update_id: 1, message: { message_id: 5, date: 1, chat: group, from: ada, ...message } } as unknown as Update;
}

describe("createUpdateHandler", () => {
  it("downloads files only when the bot is addressed in a group", async () => {
    const { handle, received, downloads } = setup();
    await handle(update({ photo, caption: "holiday" }), new AbortController().signal);
    await handle(update({ photo, caption: "@hermes_bot look", caption_entities: [{ type: "mention", offset: 0, length: 11 }] }), new AbortController().signal);
    expect(downloads).toEqual(["p1 /attachments/telegram--100-5-1-photo.jpg"]);
    expect(received.map((m) => m.attachments[0]?.localPath)).toEqual([undefined, "/attachments/telegram--100-5-1-photo.jpg"]);
  });

  it("lists a stranger's files without fetching them, as the gateway's file gate says; a gate that cannot answer leaves the update unconfirmed", async () => {
    const asked: string[] = [];
    const { handle, received, downloads } = setup(async (message) => {
      asked.push(message.user.id);
      return message.user.id === "7";
    });
    const dm = (from: Record<string, unknown>) => ({ update_id: 3, message: { message_id: 9, date: 1, chat: { id: Number(from.id), type: "private" }, from, photo, caption: "look" } }) as unknown as Update;
    await handle(dm({ id: 8, is_bot: false, first_name: "Stranger" }), new AbortController().signal);
    await handle(dm(ada), new AbortController().signal);
    expect(asked).toEqual(["8", "7"]);
    expect(downloads).toEqual(["p1 /attachments/telegram-7-9-1-photo.jpg"]);
    expect(received.map((m) => [m.user.id, m.attachments.length, m.attachments[0]?.localPath])).toEqual([
      ["8", 1, undefined],
      ["7", 1, "/attachments/telegram-7-9-1-photo.jpg"],
    ]);

    const away = setup(async () => Promise.reject(new Error("database unreachable")));
    await expect(away.handle(dm(ada), new AbortController().signal)).rejects.toThrow("database unreachable");
    expect(away.downloads).toEqual([]);
    expect(away.received).toEqual([]);
  });

  it("skips updates it cannot read or must ignore, without handing them on", async () => {
    const { handle, received, logger } = setup();
    await handle({ update_id: 2, message: { text: "no chat" } } as unknown as Update, new AbortController().signal);
    await handle(update({ new_chat_members: [ada] }), new AbortController().signal);
    expect(received).toEqual([]);
    expect(logger.entries.map((e) => [e.level, e.message])).toEqual([
      ["error", "could not read a Telegram update; skipped"],
      ["debug", "Telegram update ignored"],
    ]);
  });

  it("does not hand an update over once stopping began", async () => {
    const { handle, received } = setup();
    const controller = new AbortController();
    controller.abort();
    await expect(handle(update({ text: "late" }), controller.signal)).rejects.toThrow(/not handed over/);
    expect(received).toEqual([]);
  });
});
