import { describe, expect, it } from "vitest";
import { attachmentKind, isTrustedAttachmentUrl, safeFileName } from "./attachment-kind.js";

describe("attachmentKind", () => {
  it("prefers the MIME type and falls back to the extension", () => {
    expect(attachmentKind("image/png", "x.bin")).toBe("image");
    expect(attachmentKind("audio/ogg", "voice")).toBe("audio");
    expect(attachmentKind("video/mp4", "clip")).toBe("video");
    expect(attachmentKind("application/pdf", "report")).toBe("document");
    expect(attachmentKind(undefined, "photo.JPG")).toBe("image");
    expect(attachmentKind(undefined, "notes.md")).toBe("document");
    expect(attachmentKind(undefined, "mystery")).toBe("other");
  });
});

describe("safeFileName", () => {
  it("drops any path and odd characters", () => {
    expect(safeFileName("../../etc/passwd")).toBe("passwd");
    expect(safeFileName("C:\\temp\\evil name?.txt")).toBe("evil_name_.txt");
    expect(safeFileName("...hidden")).toBe("hidden");
    expect(safeFileName("")).toBe("file");
    expect(safeFileName(`${"a".repeat(300)}.txt`)).toHaveLength(100);
  });
});

describe("isTrustedAttachmentUrl", () => {
  it("accepts Discord's CDN over https and the overridden REST host", () => {
    expect(isTrustedAttachmentUrl("https://cdn.discordapp.com/attachments/1/2/a.png", "https://discord.com/api")).toBe(true);
    expect(isTrustedAttachmentUrl("https://media.discordapp.net/attachments/1/2/a.png", "https://discord.com/api")).toBe(true);
    expect(isTrustedAttachmentUrl("http://127.0.0.1:9000/attachments/1/2/a.png", "http://127.0.0.1:9000/api")).toBe(true);
  });

  it("refuses anything else", () => {
    expect(isTrustedAttachmentUrl("http://cdn.discordapp.com/a.png", "https://discord.com/api")).toBe(false);
    expect(isTrustedAttachmentUrl("http://169.254.169.254/latest/meta-data", "https://discord.com/api")).toBe(false);
    expect(isTrustedAttachmentUrl("https://discord.com/evil", "https://discord.com/api")).toBe(false);
    expect(isTrustedAttachmentUrl("http://127.0.0.1:9001/a.png", "http://127.0.0.1:9000/api")).toBe(false);
    expect(isTrustedAttachmentUrl("not a url", "https://discord.com/api")).toBe(false);
  });
});
