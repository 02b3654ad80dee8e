import { describe, expect, it } from "vitest";
import { attachmentFor } from "./file-download.js";

describe("attachmentFor", () => {
  it("marks Slack audio clips and audio files as audio, so the gateway transcribes them", () => {
    expect(attachmentFor({ id: "F1", name: "audio_message.webm", mimetype: "audio/webm", size: 4_000 })).toEqual({ kind: "audio", ref: "F1", name: "audio_message.webm", mimeType: "audio/webm", sizeBytes: 4_000 });
    expect(attachmentFor({ id: "F2", name: "memo.m4a", mimetype: "audio/mp4" }).kind).toBe("audio");
  });

  it("keeps video, images and documents apart from audio", () => {
    expect(attachmentFor({ id: "F3", mimetype: "video/mp4" }).kind).toBe("video");
    expect(attachmentFor({ id: "F4", mimetype: "image/png" }).kind).toBe("image");
    expect(attachmentFor({ id: "F5", mimetype: "application/pdf" }).kind).toBe("document");
    expect(attachmentFor({ id: "F6" }).kind).toBe("other");
  });
});
