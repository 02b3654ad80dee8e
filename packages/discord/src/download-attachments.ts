import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@hermes/agent";
import type { InboundAttachment, InboundMessage } from "@hermes/gateway";
import { safeFileName } from "./attachment-kind.js";

export interface AttachmentDownloadOptions {
  /** Folder the files are saved in (created when needed). */
  dir: string;
  maxBytes: number;
  fetch: typeof fetch;
  isTrusted: (url: string) => boolean;
  logger: Logger;
  timeoutMs?: number;
}

type Download = { ok: true; localPath: string; bytes: number } | { ok: false; note: string };

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Saves a message's attachments into the attachments folder and points each at its file. A file that is too large or
 * cannot be fetched is left out, and the text says so, so the model can tell the user instead of guessing.
 */
export async function downloadAttachments(message: InboundMessage, options: AttachmentDownloadOptions): Promise<InboundMessage> {
  if (message.attachments.length === 0) return message;
  const attachments: InboundAttachment[] = [];
  const notes: string[] = [];
  for (const [index, attachment] of message.attachments.entries()) {
    const fileName = `discord-${safeFileName(message.messageId)}-${index + 1}-${safeFileName(attachment.name ?? "file")}`;
    const result = await downloadOne(attachment, path.join(options.dir, fileName), options);
    if (result.ok) {
      attachments.push({ ...attachment, localPath: result.localPath, sizeBytes: result.bytes });
    } else {
      attachments.push(attachment);
      notes.push(`[${result.note}]`);
    }
  }
  const text = [message.text, ...notes].filter((part) => part.length > 0).join("\n");
  return { ...message, text, attachments };
}

async function downloadOne(attachment: InboundAttachment, target: string, options: AttachmentDownloadOptions): Promise<Download> {
  const name = attachment.name ?? "a file";
  const tooLarge = (bytes?: number): Download => ({
    ok: false,
    note: `The attachment ${name}${bytes === undefined ? "" : ` (${formatSize(bytes)})`} was not downloaded: files over ${formatSize(options.maxBytes)} are not accepted`,
  });
  if (attachment.sizeBytes !== undefined && attachment.sizeBytes > options.maxBytes) return tooLarge(attachment.sizeBytes);
  if (!attachment.ref || !options.isTrusted(attachment.ref)) {
    options.logger.warn("attachment URL is not on Discord's CDN; not downloading it", { url: attachment.ref });
    return { ok: false, note: `The attachment ${name} could not be downloaded` };
  }
  try {
    const response = await options.fetch(attachment.ref, {
      signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      // A redirect could lead anywhere, including internal addresses.
      redirect: "error",
    });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      return { ok: false, note: `The attachment ${name} could not be downloaded (HTTP ${response.status})` };
    }
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body.cancel();
      return tooLarge(declared);
    }
    const bytes = await saveCapped(response.body, target, options);
    return bytes === undefined ? tooLarge() : { ok: true, localPath: target, bytes };
  } catch (error) {
    options.logger.warn("attachment download failed", { url: attachment.ref, error: error instanceof Error ? error.message : String(error) });
    await rm(target, { force: true });
    return { ok: false, note: `The attachment ${name} could not be downloaded` };
  }
}

/** Streams the body into `target`; stops and removes the file once it passes the cap (the size Discord declared may lie). */
async function saveCapped(body: ReadableStream<Uint8Array>, target: string, options: AttachmentDownloadOptions): Promise<number | undefined> {
  await mkdir(path.dirname(target), { recursive: true });
  const file = await open(target, "w");
  const reader = body.getReader();
  let total = 0;
  let exceeded = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > options.maxBytes) {
        exceeded = true;
        await reader.cancel();
        break;
      }
      await file.write(value);
    }
  } finally {
    await file.close();
  }
  if (!exceeded) return total;
  await rm(target, { force: true });
  return undefined;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  const mb = bytes / (1024 * 1024);
  return mb >= 10 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}
