import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Logger } from "@hermes/agent";
import type { InboundAttachment } from "@hermes/gateway";
import type { SlackFile } from "./slack-events.js";

export interface FileDownloadOptions {
  botToken: string;
  directory: string;
  maxBytes: number;
  /** Origins the bot token may be sent to; a file URL anywhere else is not fetched. */
  trustedOrigins: ReadonlySet<string>;
  fetch: typeof fetch;
  logger: Logger;
  timeoutMs?: number;
  /**
   * The message the files came with, in their names: a file shared into two conversations gets a copy of its own in
   * each (with HERMES_DATABASE_URL a path belongs to one conversation, which restores it on the worker that runs it).
   */
  messageKey?: string;
  /**
   * Aborted when the message must be handed over now: files not downloaded by then are passed on as references,
   * with a note, so that slow downloads never hold up persisting the message.
   */
  deadline?: AbortSignal;
}

export interface DownloadedFiles {
  attachments: InboundAttachment[];
  /** Sentences for the agent about files it does not get (too large, not downloadable). */
  notes: string[];
}

type Download = { ok: true; localPath: string; sizeBytes: number } | { ok: false; reason: string };

/** Downloads a message's files (Bearer bot token, size-capped) into the attachments folder. */
export async function downloadSlackFiles(files: readonly SlackFile[], options: FileDownloadOptions): Promise<DownloadedFiles> {
  const result: DownloadedFiles = { attachments: [], notes: [] };
  for (const file of files) {
    const attachment = attachmentFor(file);
    result.attachments.push(attachment);
    const label = file.name ?? file.id;
    if (file.size !== undefined && file.size > options.maxBytes) {
      result.notes.push(`The file "${label}" (${megabytes(file.size)}) was not downloaded: it is larger than the ${megabytes(options.maxBytes)} limit.`);
      continue;
    }
    if (options.deadline?.aborted) {
      result.notes.push(outOfTimeNote(label, file.id));
      continue;
    }
    const download = await downloadOne(file, options);
    if (download.ok) {
      attachment.localPath = download.localPath;
      attachment.sizeBytes = download.sizeBytes;
    } else if (download.reason === OUT_OF_TIME) {
      options.logger.warn("slack file not downloaded in time; handed over as a reference", { fileId: file.id });
      result.notes.push(outOfTimeNote(label, file.id));
    } else {
      options.logger.warn("slack file not downloaded", { fileId: file.id, reason: download.reason });
      result.notes.push(`The file "${label}" could not be downloaded: ${download.reason}.`);
    }
  }
  return result;
}

const OUT_OF_TIME = "out of time";

function outOfTimeNote(label: string, fileId: string): string {
  return `The file "${label}" was not downloaded: it did not arrive in time. It is still in Slack (file id ${fileId}).`;
}

/** What the gateway is told about a file it does not get downloaded. */
export function attachmentFor(file: SlackFile): InboundAttachment {
  const attachment: InboundAttachment = { kind: kindOf(file.mimetype), ref: file.id };
  if (file.name) attachment.name = file.name;
  if (file.mimetype) attachment.mimeType = file.mimetype;
  if (file.size !== undefined) attachment.sizeBytes = file.size;
  return attachment;
}

async function downloadOne(file: SlackFile, options: FileDownloadOptions): Promise<Download> {
  if (file.mode === "tombstone" || file.mode === "external") return { ok: false, reason: "it is not stored in Slack" };
  if (!file.url) return { ok: false, reason: "Slack gave no download address" };
  let url: URL;
  try {
    url = new URL(file.url);
  } catch {
    return { ok: false, reason: "its download address is invalid" };
  }
  // The bot token opens every file the bot can see; it only goes to Slack's own hosts.
  if (!options.trustedOrigins.has(url.origin)) return { ok: false, reason: `its address (${url.origin}) is not a Slack file host` };

  const ownTimeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const signal = options.deadline ? AbortSignal.any([ownTimeout, options.deadline]) : ownTimeout;
  const failed = (error: unknown): Download =>
    options.deadline?.aborted ? { ok: false, reason: OUT_OF_TIME } : { ok: false, reason: `the download failed (${error instanceof Error ? error.message : String(error)})` };
  let response: Response;
  try {
    response = await options.fetch(url, { headers: { authorization: `Bearer ${options.botToken}` }, signal });
  } catch (error) {
    return failed(error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, reason: `Slack answered HTTP ${response.status}` };
  }
  // Without the files:read scope Slack answers with its sign-in page instead of the file.
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.startsWith("text/html") && !(file.mimetype ?? "").startsWith("text/html")) {
    await response.body.cancel().catch(() => undefined);
    return { ok: false, reason: "Slack did not hand out the file (does the app have the files:read scope?)" };
  }
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body.cancel().catch(() => undefined);
    return { ok: false, reason: `it is larger than the ${megabytes(options.maxBytes)} limit` };
  }
  await mkdir(options.directory, { recursive: true });
  const localPath = path.join(options.directory, fileNameFor(file, options.messageKey));
  let received = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > options.maxBytes) callback(new FileTooLargeError());
      else callback(null, chunk);
    },
  });
  const out = createWriteStream(localPath, { mode: 0o600 });
  try {
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), cap, out);
  } catch (error) {
    // The file is opened asynchronously: a download refused before the open finished would otherwise be created
    // after the removal, and left behind.
    if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
    await rm(localPath, { force: true });
    if (error instanceof FileTooLargeError) return { ok: false, reason: `it is larger than the ${megabytes(options.maxBytes)} limit` };
    return failed(error);
  }
  return { ok: true, localPath, sizeBytes: received };
}

class FileTooLargeError extends Error {}

/** `slack-[<message>-]<file id>-<name>`, reduced to safe characters so a hostile name cannot leave the folder. */
export function fileNameFor(file: Pick<SlackFile, "id" | "name">, messageKey?: string): string {
  const clean = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "");
  const name = clean(file.name ?? "").slice(-100);
  const message = messageKey === undefined ? "" : clean(messageKey).slice(0, 60);
  return `slack-${message ? `${message}-` : ""}${clean(file.id).slice(0, 40)}${name ? `-${name}` : ""}`;
}

function kindOf(mimeType: string | undefined): InboundAttachment["kind"] {
  if (!mimeType) return "other";
  if (mimeType.startsWith("image/")) return "image";
  if (mimeType.startsWith("audio/")) return "audio";
  if (mimeType.startsWith("video/")) return "video";
  if (mimeType.startsWith("text/") || mimeType.startsWith("application/")) return "document";
  return "other";
}

function megabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  const mb = bytes / (1024 * 1024);
  return `${mb >= 10 ? Math.round(mb) : Math.round(mb * 10) / 10} MB`;
}
