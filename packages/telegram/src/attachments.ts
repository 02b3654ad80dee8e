import path from "node:path";
import type { InboundAttachment } from "@hermes/gateway";
import type { DownloadOutcome } from "./download-file.js";
import type { FileRef } from "./file-refs.js";

export interface AttachmentOptions {
  /** Telegram chat and message id, which make saved names unique (and a re-delivered message overwrite its own). */
  chatId: string;
  messageId: string;
  directory: string;
  maxBytes: number;
  download: (fileId: string, destination: string) => Promise<DownloadOutcome>;
}

export interface FetchedAttachments {
  attachments: InboundAttachment[];
  /** Lines for the message text telling the agent (and so the user) which files were refused and why. */
  notes: string[];
}

/** Downloads a message's files into the attachments folder, refusing those over the size limit with a note. */
export async function fetchAttachments(files: readonly FileRef[], options: AttachmentOptions): Promise<FetchedAttachments> {
  const attachments: InboundAttachment[] = [];
  const notes: string[] = [];
  for (const [index, file] of files.entries()) {
    const attachment = describeFile(file);
    attachments.push(attachment);
    if (file.sizeBytes !== undefined && file.sizeBytes > options.maxBytes) {
      notes.push(tooLargeNote(file.name, file.sizeBytes, options.maxBytes));
      continue;
    }
    const destination = path.join(options.directory, savedName(options, index, file.name));
    const outcome = await options.download(file.fileId, destination);
    if (outcome.ok) {
      attachment.localPath = destination;
      attachment.sizeBytes = outcome.sizeBytes;
    } else if (outcome.reason === "too-large") {
      notes.push(tooLargeNote(file.name, outcome.sizeBytes, options.maxBytes));
    } else {
      notes.push(`[The file "${file.name}" could not be downloaded (${outcome.detail}); ask the user to send it again.]`);
    }
  }
  return { attachments, notes };
}

/** Without the file on disk, the agent still learns what was sent. */
export function describeFile(file: FileRef): InboundAttachment {
  const attachment: InboundAttachment = { kind: file.kind, name: file.name, ref: file.fileId };
  if (file.mimeType !== undefined) attachment.mimeType = file.mimeType;
  if (file.sizeBytes !== undefined) attachment.sizeBytes = file.sizeBytes;
  return attachment;
}

function tooLargeNote(name: string, size: number | undefined, max: number): string {
  const stated = size === undefined ? "" : ` (${formatBytes(size)})`;
  return `[The file "${name}"${stated} was not accepted: files larger than ${formatBytes(max)} are refused. Let the user know it was too large.]`;
}

/** Names come from users: only safe characters, no leading dots, bounded length. */
function savedName(options: AttachmentOptions, index: number, name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(-80) || "file";
  const chat = options.chatId.replace(/[^0-9-]/g, "_");
  return `telegram-${chat}-${options.messageId}-${index + 1}-${safe}`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const rounded = Math.round(value * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)} ${units[unit]}`;
}
