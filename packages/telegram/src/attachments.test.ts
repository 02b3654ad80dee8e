import path from "node:path";
import { describe, expect, it } from "vitest";
import { fetchAttachments, formatBytes } from "./attachments.js";
import type { DownloadOutcome } from "./download-file.js";
import type { FileRef } from "./file-refs.js";

function options(outcomes: Record<string, DownloadOutcome>, requested: string[] = []) {
  return {
    chatId: "-100",
    messageId: "31",
    directory: "/work/attachments",
    maxBytes: 1024,
    download: async (fileId: string, destination: string) => {
      requested.push(`${fileId} -> ${destination}`);
      return outcomes[fileId] ?? { ok: false as const, reason: "failed" as const, detail: "unknown file" };
    },
  };
}

describe("fetchAttachments", () => {
  it("saves files under safe, unique names and records where", async () => {
    const requested: string[] = [];
    const files: FileRef[] = [{ kind: "document", fileId: "f1", name: "../../etc/pass wd.txt", mimeType: "text/plain", sizeBytes: 10 }];
    const result = await fetchAttachments(files, options({ f1: { ok: true, sizeBytes: 12 } }, requested));
    const saved = path.join("/work/attachments", "telegram--100-31-1-etc_pass_wd.txt");
    expect(requested).toEqual([`f1 -> ${saved}`]);
    expect(result).toEqual({ attachments: [{ kind: "document", name: "../../etc/pass wd.txt", mimeType: "text/plain", sizeBytes: 12, ref: "f1", localPath: saved }], notes: [] });
  });

  it("refuses a file whose stated size is over the limit without downloading it", async () => {
    const requested: string[] = [];
    const result = await fetchAttachments([{ kind: "document", fileId: "big", name: "big.zip", sizeBytes: 5 * 1024 * 1024 }], options({}, requested));
    expect(requested).toEqual([]);
    expect(result.attachments[0]?.localPath).toBeUndefined();
    expect(result.notes).toEqual(['[The file "big.zip" (5 MB) was not accepted: files larger than 1 KB are refused. Let the user know it was too large.]']);
  });

  it("notes files found too large while downloading, and failed downloads", async () => {
    const files: FileRef[] = [
      { kind: "video", fileId: "liar", name: "clip.mp4" },
      { kind: "image", fileId: "gone", name: "photo.jpg" },
    ];
    const result = await fetchAttachments(files, options({ liar: { ok: false, reason: "too-large" } }));
    expect(result.notes).toEqual([
      '[The file "clip.mp4" was not accepted: files larger than 1 KB are refused. Let the user know it was too large.]',
      '[The file "photo.jpg" could not be downloaded (unknown file); ask the user to send it again.]',
    ]);
  });
});

describe("formatBytes", () => {
  it("rounds to one decimal in the largest fitting unit", () => {
    expect([formatBytes(500), formatBytes(1024), formatBytes(5000), formatBytes(20 * 1024 * 1024), formatBytes(1.25 * 1024 ** 3)]).toEqual(["500 bytes", "1 KB", "4.9 KB", "20 MB", "1.3 GB"]);
  });
});
