import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@hermes/agent";
import { downloadSlackFiles, fileNameFor, type FileDownloadOptions } from "./file-download.js";

let dir: string;
let server: http.Server;
let origin: string;
const seenAuth: string[] = [];
const heldResponses: http.ServerResponse[] = [];
let onSlowRequest = (): void => {};

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
  seenAuth.length = 0;
  server = http.createServer((req, res) => {
    seenAuth.push(req.headers.authorization ?? "");
    if (req.headers.authorization !== "Bearer xoxb-test") return void res.writeHead(200, { "content-type": "text/html" }).end("<html>sign in</html>");
    if (req.url === "/files/big") {
      // Written in two pieces, so it goes out chunked without a Content-Length and only the streamed size tells.
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.write(Buffer.alloc(2500));
      return void res.end(Buffer.alloc(2500));
    }
    if (req.url === "/files/missing") return void res.writeHead(404).end();
    if (req.url === "/files/slow") {
      heldResponses.push(res);
      return void onSlowRequest();
    }
    res.writeHead(200, { "content-type": "text/plain" }).end("hello file");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const res of heldResponses.splice(0)) res.destroy();
  onSlowRequest = () => {};
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function options(overrides: Partial<FileDownloadOptions> = {}): FileDownloadOptions {
  return { botToken: "xoxb-test", directory: dir, maxBytes: 1000, trustedOrigins: new Set([origin]), fetch, logger: silentLogger, ...overrides };
}

describe("downloadSlackFiles", () => {
  it("downloads with the bot token into the folder", async () => {
    const result = await downloadSlackFiles([{ id: "F1", name: "notes.txt", mimetype: "text/plain", size: 10, url: `${origin}/files/F1` }], options());
    expect(result.notes).toEqual([]);
    expect(result.attachments).toEqual([
      { kind: "document", ref: "F1", name: "notes.txt", mimeType: "text/plain", sizeBytes: 10, localPath: path.join(dir, "slack-F1-notes.txt") },
    ]);
    expect(await readFile(path.join(dir, "slack-F1-notes.txt"), "utf8")).toBe("hello file");
    expect(seenAuth).toEqual(["Bearer xoxb-test"]);
  });

  it("refuses files over the limit, by declared size or while streaming, and leaves nothing behind", async () => {
    const declared = await downloadSlackFiles([{ id: "F2", name: "huge.bin", size: 50_000_000, url: `${origin}/files/big` }], options());
    expect(declared.notes).toEqual(['The file "huge.bin" (48 MB) was not downloaded: it is larger than the 1 KB limit.']);
    expect(seenAuth).toEqual([]);
    const undeclared = await downloadSlackFiles([{ id: "F3", name: "sneaky.bin", url: `${origin}/files/big` }], options());
    expect(undeclared.attachments[0]?.localPath).toBeUndefined();
    expect(undeclared.notes[0]).toContain("larger than the 1 KB limit");
    expect(await readdir(dir)).toEqual([]);
  });

  it("never sends the token to a host that is not Slack's", async () => {
    const result = await downloadSlackFiles([{ id: "F4", name: "x.txt", url: `${origin}/files/F4` }], options({ trustedOrigins: new Set(["https://files.slack.com"]) }));
    expect(result.attachments[0]?.localPath).toBeUndefined();
    expect(result.notes[0]).toContain("is not a Slack file host");
    expect(seenAuth).toEqual([]);
  });

  it("explains HTTP failures and sign-in pages instead of saving them", async () => {
    const missing = await downloadSlackFiles([{ id: "F5", name: "gone.txt", url: `${origin}/files/missing` }], options());
    expect(missing.notes[0]).toContain("HTTP 404");
    const signIn = await downloadSlackFiles([{ id: "F6", name: "x.png", mimetype: "image/png", url: `${origin}/files/F6` }], options({ botToken: "xoxb-wrong" }));
    expect(signIn.notes[0]).toContain("files:read");
    expect(await readdir(dir)).toEqual([]);
  });

  it("hands over files as references once the deadline passes, during a download or before it starts", async () => {
    const deadline = new AbortController();
    onSlowRequest = () => deadline.abort();
    const files = [
      { id: "F7", name: "slow.txt", size: 10, url: `${origin}/files/slow` },
      { id: "F8", name: "next.txt", size: 10, url: `${origin}/files/F8` },
    ];
    const result = await downloadSlackFiles(files, options({ deadline: deadline.signal }));
    expect(result.attachments).toEqual([
      { kind: "other", ref: "F7", name: "slow.txt", sizeBytes: 10 },
      { kind: "other", ref: "F8", name: "next.txt", sizeBytes: 10 },
    ]);
    expect(result.notes).toEqual([
      'The file "slow.txt" was not downloaded: it did not arrive in time. It is still in Slack (file id F7).',
      'The file "next.txt" was not downloaded: it did not arrive in time. It is still in Slack (file id F8).',
    ]);
    expect(seenAuth).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("keeps hostile names inside the folder, and names a file after the message it came with", () => {
    expect(fileNameFor({ id: "F1", name: "../../etc/passwd" })).toBe("slack-F1-etc_passwd");
    expect(fileNameFor({ id: "../F2" })).toBe("slack-F2");
    // The same file shared into two conversations gets a name in each.
    expect(fileNameFor({ id: "F3", name: "plan.pdf" }, "C1:1700000000.000100")).toBe("slack-C1_1700000000.000100-F3-plan.pdf");
    expect(fileNameFor({ id: "F3", name: "plan.pdf" }, "D9:1700000001.000200")).not.toBe(fileNameFor({ id: "F3", name: "plan.pdf" }, "C1:1700000000.000100"));
  });
});
