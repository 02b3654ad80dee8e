import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { describeApiFailure } from "./api-errors.js";

export interface FileSource {
  getFile(fileId: string, signal?: AbortSignal): Promise<{ file_path?: string; file_size?: number }>;
}

export interface DownloadOptions {
  api: FileSource;
  /** The download URL of a file path (it holds the token: never log it). */
  fileUrl: (filePath: string) => string;
  fetch: typeof fetch;
  maxBytes: number;
  signal: AbortSignal;
}

export type DownloadOutcome =
  | { ok: true; sizeBytes: number }
  | { ok: false; reason: "too-large"; sizeBytes?: number }
  | { ok: false; reason: "failed"; detail: string };

const DOWNLOAD_TIMEOUT_MS = 120_000;

class TooLarge extends Error {}

/**
 * Downloads a Telegram file to `destination` through getFile, refusing files over `maxBytes`: by the size Telegram
 * states before anything is fetched, and again while streaming, since a stated size can be missing or wrong. A partial
 * file is removed; the file appears at `destination` only when complete.
 */
export async function downloadTelegramFile(fileId: string, destination: string, options: DownloadOptions): Promise<DownloadOutcome> {
  let info: { file_path?: string; file_size?: number };
  try {
    info = await options.api.getFile(fileId, options.signal);
  } catch (error) {
    const failure = describeApiFailure(error);
    if (/file is too big/i.test(failure.message)) return { ok: false, reason: "too-large" };
    return { ok: false, reason: "failed", detail: failure.message };
  }
  if (info.file_size !== undefined && info.file_size > options.maxBytes) return { ok: false, reason: "too-large", sizeBytes: info.file_size };
  if (!info.file_path) return { ok: false, reason: "failed", detail: "Telegram gave no download path" };

  const partial = `${destination}.part`;
  const url = options.fileUrl(info.file_path);
  let out: WriteStream | undefined;
  try {
    const response = await options.fetch(url, { signal: AbortSignal.any([options.signal, AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS)]) });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return { ok: false, reason: "failed", detail: `download answered HTTP ${response.status}` };
    }
    const stated = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(stated) && stated > options.maxBytes) {
      await response.body.cancel();
      return { ok: false, reason: "too-large", sizeBytes: stated };
    }
    await mkdir(path.dirname(destination), { recursive: true });
    const counter = byteLimit(options.maxBytes);
    out = createWriteStream(partial);
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), counter.stream, out);
    await rename(partial, destination);
    return { ok: true, sizeBytes: counter.bytes() };
  } catch (error) {
    // The file is opened asynchronously: one refused before the open finished would be created after the removal.
    const stream = out;
    if (stream !== undefined && !stream.closed) await new Promise<void>((resolve) => stream.once("close", () => resolve()));
    await rm(partial, { force: true });
    if (error instanceof TooLarge) return { ok: false, reason: "too-large" };
    if (options.signal.aborted) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: "failed", detail: detail.split(url).join("<file url>") };
  }
}

function byteLimit(maxBytes: number): { stream: Transform; bytes: () => number } {
  let total = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      total += chunk.length;
      if (total > maxBytes) callback(new TooLarge(`more than ${maxBytes} bytes`));
      else callback(null, chunk);
    },
  });
  return { stream, bytes: () => total };
}
