import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import type { InboundAttachment, InboundMessage } from "@hermes/gateway";
import { downloadAttachments, type AttachmentDownloadOptions } from "./download-attachments.js";

let dir: string;
let server: http.Server;
let base: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  server = http.createServer((req, res) => {
    if (req.url === "/small.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end("tiny file");
    if (req.url === "/streamed.bin") {
      // Chunked, no content-length: only counting the bytes reveals the size.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let i = 0; i < 8; i += 1) res.write(Buffer.alloc(256, i));
      return void res.end();
    }
    if (req.url === "/moved") return void res.writeHead(302, { location: `${base}/small.txt` }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function message(attachments: InboundAttachment[], text = "look"): InboundMessage {
  return {
    platform: "discord",
    chat: { id: "1", type: "dm" },
    user: { id: "2" },
    messageId: "1100000000000000001",
    text,
    attachments,
    mentionedBot: false,
    timestamp: 0,
  };
}

function options(overrides: Partial<AttachmentDownloadOptions> = {}): AttachmentDownloadOptions {
  return { dir: path.join(dir, "attachments"), maxBytes: 1024, fetch, isTrusted: (url) => url.startsWith(base), logger: silentLogger, ...overrides };
}

describe("downloadAttachments", () => {
  it("saves a file under a safe name and points the attachment at it", async () => {
    const result = await downloadAttachments(message([{ kind: "document", name: "../notes.txt", sizeBytes: 9, ref: `${base}/small.txt` }]), options());
    const saved = result.attachments[0]?.localPath ?? "";
    expect(path.dirname(saved)).toBe(path.join(dir, "attachments"));
    expect(path.basename(saved)).toBe("discord-1100000000000000001-1-notes.txt");
    expect(await readFile(saved, "utf8")).toBe("tiny file");
    expect(result.attachments[0]?.sizeBytes).toBe(9);
    expect(result.text).toBe("look");
  });

  it("refuses a file Discord says is too large without fetching it", async () => {
    const result = await downloadAttachments(message([{ kind: "other", name: "big.iso", sizeBytes: 5 * 1024 * 1024, ref: `${base}/small.txt` }]), options());
    expect(result.attachments[0]?.localPath).toBeUndefined();
    expect(result.text).toBe("look\n[The attachment big.iso (5.0 MB) was not downloaded: files over 1 KB are not accepted]");
  });

  it("stops a download that grows past the cap and leaves no file behind", async () => {
    const result = await downloadAttachments(message([{ kind: "other", name: "liar.bin", sizeBytes: 10, ref: `${base}/streamed.bin` }]), options());
    expect(result.attachments[0]?.localPath).toBeUndefined();
    expect(result.text).toContain("liar.bin was not downloaded: files over 1 KB are not accepted");
    expect(await readdir(path.join(dir, "attachments"))).toEqual([]);
  });

  it("says so when a file cannot be fetched, is redirected, or is not on Discord's CDN", async () => {
    const result = await downloadAttachments(
      message([
        { kind: "other", name: "gone.txt", ref: `${base}/gone.txt` },
        { kind: "other", name: "moved.txt", ref: `${base}/moved` },
        { kind: "other", name: "elsewhere.txt", ref: "http://169.254.169.254/secret" },
      ], ""),
      options(),
    );
    expect(result.attachments.every((a) => a.localPath === undefined)).toBe(true);
    expect(result.text.split("\n")).toEqual([
      "[The attachment gone.txt could not be downloaded (HTTP 404)]",
      "[The attachment moved.txt could not be downloaded]",
      "[The attachment elsewhere.txt could not be downloaded]",
    ]);
  });
});
