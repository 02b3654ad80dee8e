import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeTelegram, type FakeTelegram } from "../../../test/fakes/telegram/index.js";
import { createBotApi } from "./bot-api.js";
import { downloadTelegramFile, type DownloadOptions } from "./download-file.js";

let fake: FakeTelegram;
let dir: string;

beforeEach(async () => {
  fake = await startFakeTelegram();
  dir = await mkdtemp(path.join(os.tmpdir(), "hermes-"));
});

afterEach(async () => {
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

function options(maxBytes: number, overrides: Partial<DownloadOptions> = {}): DownloadOptions {
  const api = createBotApi({ token: fake.token, apiRoot: fake.apiRoot });
  return { api, fileUrl: api.fileUrl, fetch, maxBytes, signal: new AbortController().signal, ...overrides };
}

describe("downloadTelegramFile", () => {
  it("downloads through getFile and the file URL", async () => {
    const content = Buffer.from("hello, file");
    const { fileId } = fake.addFile({ content, name: "a.txt" });
    const destination = path.join(dir, "sub", "a.txt");
    expect(await downloadTelegramFile(fileId, destination, options(1024))).toEqual({ ok: true, sizeBytes: content.length });
    expect(await readFile(destination)).toEqual(content);
  });

  it("refuses by the stated size without downloading", async () => {
    const { fileId } = fake.addFile({ content: Buffer.alloc(2048) });
    expect(await downloadTelegramFile(fileId, path.join(dir, "x"), options(1024))).toEqual({ ok: false, reason: "too-large", sizeBytes: 2048 });
    expect(fake.downloads).toEqual([]);
  });

  it("stops a download that grows past the limit without any stated size, leaving no file behind", async () => {
    const { fileId } = fake.addFile({ content: Buffer.alloc(4096, 7), advertisedSize: null, hideLength: true });
    expect(await downloadTelegramFile(fileId, path.join(dir, "x"), options(1024))).toEqual({ ok: false, reason: "too-large" });
    expect(fake.downloads).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it("reports failures without the token", async () => {
    const result = await downloadTelegramFile("no-such-file", path.join(dir, "x"), options(1024));
    expect(result).toEqual({ ok: false, reason: "failed", detail: "400 Bad Request: invalid file_id" });
    const { fileId } = fake.addFile({ content: Buffer.from("x") });
    const broken = await downloadTelegramFile(fileId, path.join(dir, "x"), options(1024, { fileUrl: () => `${fake.apiRoot}/file/botWRONG/nothing` }));
    expect(broken).toEqual({ ok: false, reason: "failed", detail: "download answered HTTP 404" });
  });
});
