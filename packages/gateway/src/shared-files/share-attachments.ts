import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@hermes/agent";
import type { SharedFileRepository } from "@hermes/store";
import type { InboundAttachment, InboundMessage } from "../core/inbound.js";
import type { HomeFiles } from "./home-files.js";

export interface ShareAttachmentsDeps {
  files: SharedFileRepository;
  homeFiles: HomeFiles;
  /** The agent's workspace, where the file tools start relative paths. */
  workspace: string;
  /** HERMES_MAX_ATTACHMENT_MB in bytes. */
  maxBytes: number;
  logger: Logger;
}

/**
 * With HERMES_DATABASE_URL, an attachment an adapter saved in this gateway's workspace also goes to the database
 * with its session, before the message is persisted, so the worker that runs the message (with a HERMES_HOME of its
 * own) restores it. The message then names it relative to the workspace, which means the same file on every machine.
 * One over the size cap is not kept: the message says it was refused, so the agent tells the person. A database
 * failure rejects, so the adapter does not acknowledge the message and the platform delivers it again.
 */
export async function shareAttachments(message: InboundMessage, sessionKey: string, deps: ShareAttachmentsDeps): Promise<InboundMessage> {
  if (!message.attachments.some((attachment) => attachment.localPath !== undefined)) return message;
  const notes: string[] = [];
  const attachments: InboundAttachment[] = [];
  for (const attachment of message.attachments) {
    const shared = attachment.localPath === undefined ? undefined : deps.homeFiles.sharedPathOf(attachment.localPath);
    const bytes = attachment.localPath === undefined || shared === undefined ? undefined : await readFile(attachment.localPath).catch(() => undefined);
    if (attachment.localPath === undefined || shared === undefined || bytes === undefined) {
      if (attachment.localPath !== undefined) deps.logger.warn("attachment not shared: not a readable file inside HERMES_HOME", { platform: message.platform });
      attachments.push(attachment);
      continue;
    }
    const put = await deps.files.put(shared, bytes, { sessionKey, maxBytes: deps.maxBytes });
    if (put.ok) {
      attachments.push({ ...attachment, localPath: workspaceRelative(attachment.localPath, deps.workspace) });
      continue;
    }
    const { localPath: _dropped, ...withoutFile } = attachment;
    attachments.push(withoutFile);
    if (put.reason === "too_large") notes.push(tooLargeNote(attachment.name ?? "attachment", put.size, put.maxBytes));
    else deps.logger.warn("attachment not shared", { platform: message.platform, reason: put.detail });
  }
  const text = notes.length === 0 ? message.text : [message.text, ...notes].filter((line) => line !== "").join("\n");
  return { ...message, text, attachments };
}

function workspaceRelative(file: string, workspace: string): string {
  const relative = path.relative(workspace, file);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return file;
  return relative.split(path.sep).join("/");
}

function tooLargeNote(name: string, size: number, maxBytes: number): string {
  return `[The file "${name}" (${megabytes(size)}) was not accepted: files larger than ${megabytes(maxBytes)} are refused. Let the user know it was too large.]`;
}

function megabytes(bytes: number): string {
  const value = Math.round((bytes / (1024 * 1024)) * 10) / 10;
  return value >= 0.1 ? `${value} MB` : `${bytes} bytes`;
}
