import { describe, expect, it } from "vitest";
import type { Message } from "grammy/types";
import { fileRefsOf } from "./file-refs.js";

function message(fields: Record<string, unknown>): Message {
  return { message_id: 1, date: 1, chat: { id: 7, type: "private", first_name: "Ada" }, ...fields } as unknown as Message;
}

describe("fileRefsOf", () => {
  it("takes the largest size of a photo", () => {
    const photo = [
      { file_id: "a", file_unique_id: "a", width: 1280, height: 720 },
      { file_id: "b", file_unique_id: "b", width: 90, height: 50 },
    ];
    expect(fileRefsOf(message({ photo }))).toEqual([{ kind: "image", fileId: "a", name: "photo.jpg", mimeType: "image/jpeg" }]);
  });

  it("takes an animation once although it also arrives as a document", () => {
    const file = { file_id: "gif", file_unique_id: "g", file_name: "fun.mp4", mime_type: "video/mp4", file_size: 3 };
    expect(fileRefsOf(message({ animation: { ...file, width: 1, height: 1, duration: 1 }, document: file }))).toEqual([
      { kind: "video", fileId: "gif", name: "fun.mp4", mimeType: "video/mp4", sizeBytes: 3 },
    ]);
  });

  it("reads voice notes and documents without names", () => {
    expect(fileRefsOf(message({ voice: { file_id: "v", file_unique_id: "v", duration: 2 } }))).toEqual([{ kind: "audio", fileId: "v", name: "voice.ogg", mimeType: "audio/ogg" }]);
    expect(fileRefsOf(message({ document: { file_id: "d", file_unique_id: "d" } }))).toEqual([{ kind: "document", fileId: "d", name: "document" }]);
    expect(fileRefsOf(message({ text: "no files" }))).toEqual([]);
  });
});
