import { open, realpath } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "@hermes/agent";
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import type { InboundAttachment, InboundMessage } from "../core/inbound.js";
import { fenceFor } from "./fence.js";
import { imageFormatOf, looksLikeImage, looksLikeText } from "./file-kinds.js";
import { describePdf, isPdfFile } from "./pdf-content.js";

/**
 * Anthropic refuses an image whose base64 passes 5 MB, the smallest limit of the providers; base64 is 4/3 of the bytes,
 * so 3.75 MB of file. A larger photo is described instead.
 */
export const DEFAULT_MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4;
/**
 * All the images of one message (Discord and Slack carry up to ten): Anthropic refuses a request over 32 MB, so
 * 15 MB of files (20 MB of base64) leaves room for the conversation; the images past it are described instead.
 */
export const DEFAULT_MAX_MESSAGE_IMAGE_BYTES = 15 * 1024 * 1024;
/** What the documents of one message may add to it, in bytes of text (about 25,000 tokens). */
export const DEFAULT_MAX_INLINE_TEXT_BYTES = 100 * 1024;
/**
 * A small model's share: a quarter of its window, at 3 bytes a token (code, CSV and non-Latin text run denser than
 * English's 4), so one document cannot overflow the context and fail the run; history, prompt and answer need the rest.
 */
const INLINE_TEXT_BYTES_PER_CONTEXT_TOKEN = 3 / 4;
/** Said in the text of a message whose images the model was not shown; also how a later turn knows it was said. */
export const NO_VISION_MARKER = "not shown to you: the model in use cannot see images";

export interface AttachmentContentOptions {
  /** The agent's workspace: relative paths (the database mode's) resolve here, and no file outside it is read (none at all without it). */
  workspace?: string;
  /** The model takes image parts (pi-ai's `input` includes "image"). */
  acceptsImages: boolean;
  /** A shared session: the text starts with the sender's name. */
  shared: boolean;
  maxImageBytes?: number;
  maxMessageImageBytes?: number;
  maxInlineTextBytes?: number;
  /** The model's context window in tokens: a small one gets less inlined text than the default. */
  contextWindow?: number;
  /** Told why a PDF's text could not be extracted. */
  logger?: Logger;
}

export interface UserInput {
  content: string | Array<TextContent | ImageContent>;
  /** Images that went as descriptions only because the model cannot see images (their names). */
  unseenImages: string[];
}

type Described = { line: string; image?: ImageContent; unseen?: string; inlinedBytes?: number; imageBytes?: number };
type Budgets = { textBudget: number; imageBudget: number };

/**
 * What the model receives for a message: its text, then one line per attachment. Images go as image parts after the
 * text when the model can see them; text documents and PDFs' text are inlined in fences up to a budget; everything else is named
 * with its workspace path, so a file tool can open it and nothing is dropped without a word.
 */
export async function userInputFor(message: InboundMessage, options: AttachmentContentOptions): Promise<UserInput> {
  const lines: string[] = [];
  if (message.replyTo?.text) lines.push(`(In reply to: "${message.replyTo.text.slice(0, 300)}")`);
  lines.push(message.text);
  const images: ImageContent[] = [];
  const unseenImages: string[] = [];
  let textBudget = options.maxInlineTextBytes ?? inlineTextBudget(options.contextWindow);
  let imageBudget = options.maxMessageImageBytes ?? DEFAULT_MAX_MESSAGE_IMAGE_BYTES;
  for (const attachment of message.attachments) {
    const described = await describe(attachment, { ...options, textBudget, imageBudget });
    lines.push(described.line);
    if (described.image) images.push(described.image);
    if (described.unseen !== undefined) unseenImages.push(described.unseen);
    textBudget -= described.inlinedBytes ?? 0;
    imageBudget -= described.imageBytes ?? 0;
  }
  const joined = lines.join("\n").trim();
  const text = options.shared ? `[${message.user.name ?? message.user.id}] ${joined}` : joined;
  return { content: images.length === 0 ? text : [{ type: "text", text }, ...images], unseenImages };
}

function inlineTextBudget(contextWindow: number | undefined): number {
  if (contextWindow === undefined) return DEFAULT_MAX_INLINE_TEXT_BYTES;
  return Math.min(DEFAULT_MAX_INLINE_TEXT_BYTES, Math.floor(contextWindow * INLINE_TEXT_BYTES_PER_CONTEXT_TOKEN));
}

async function describe(attachment: InboundAttachment, options: AttachmentContentOptions & Budgets): Promise<Described> {
  const what = summaryOf(attachment);
  const file = await fileOf(attachment, options.workspace);
  if (file === undefined) return { line: attachment.localPath ? `[Attachment: ${what} — saved at ${attachment.localPath}]` : `[Attachment: ${what}]` };
  const where = `saved at ${attachment.localPath}`;
  // The bytes decide, before the name: a PDF may arrive as octet-stream, or named like something else.
  if (await isPdfFile(file)) {
    return describePdf({ file, name: attachment.name ?? path.basename(file), what, where, budget: options.textBudget, logger: options.logger });
  }
  if (looksLikeImage(attachment)) return describeImage(attachment, file, what, where, options);
  if (looksLikeText(attachment)) {
    const inlined = await inlineText(attachment, file, what, where, options.textBudget);
    if (inlined) return inlined;
  }
  return { line: `[Attachment: ${what} — ${where}; its content is not included here]` };
}

async function describeImage(
  attachment: InboundAttachment,
  file: string,
  what: string,
  where: string,
  options: AttachmentContentOptions & Budgets,
): Promise<Described> {
  const name = attachment.name ?? path.basename(file);
  const maxBytes = options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  const read = await readUpTo(file, maxBytes);
  if (read === undefined) return { line: `[Attachment: ${what} — ${where}; it could not be read]` };
  const format = imageFormatOf(read.bytes);
  if (format === undefined) return { line: `[Attachment: ${what} — ${where}; not a JPEG, PNG, GIF or WebP image, so it is not shown]` };
  if (!options.acceptsImages) return { line: `[Image: ${what} — ${where}; ${NO_VISION_MARKER}]`, unseen: name };
  if (read.truncated) return { line: `[Image: ${what} — ${where}; not shown: images larger than ${megabytes(maxBytes)} are not sent to the model]` };
  if (read.bytes.length > options.imageBudget) {
    return { line: `[Image: ${what} — ${where}; not shown: this message's earlier images already fill what one message may send]` };
  }
  return {
    line: `[Image: ${what} — ${where}; attached below]`,
    image: { type: "image", data: Buffer.from(read.bytes).toString("base64"), mimeType: format },
    imageBytes: read.bytes.length,
  };
}

async function inlineText(attachment: InboundAttachment, file: string, what: string, where: string, budget: number): Promise<Described | undefined> {
  if (budget <= 0) return { line: `[Attachment: ${what} — ${where}; not included: this message's documents already fill the space for inlined text]` };
  const read = await readUpTo(file, budget);
  if (read === undefined) return undefined;
  const text = utf8TextOf(read.bytes);
  if (text === undefined) return undefined;
  const name = attachment.name ?? path.basename(file);
  const fence = fenceFor(text);
  const note = read.truncated ? `\n[Only the start of "${name}" is shown (${megabytes(read.bytes.length)}); the whole file is ${where}.]` : "";
  return { line: `[Document: ${what} — ${where}]\n${fence}${languageOf(name)}\n${text}\n${fence}${note}`, inlinedBytes: read.bytes.length };
}

/** Decodes as UTF-8, or undefined for binary content (a NUL byte or an invalid sequence). A cut final character is dropped. */
function utf8TextOf(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return undefined;
  }
}

function languageOf(name: string): string {
  return path.extname(name).slice(1).toLowerCase().replace(/[^a-z0-9+-]/g, "");
}

/** The saved file when it exists inside the workspace; without a workspace no file is read (only named). */
async function fileOf(attachment: InboundAttachment, workspace: string | undefined): Promise<string | undefined> {
  const saved = attachment.localPath;
  if (saved === undefined || workspace === undefined) return undefined;
  try {
    const real = await realpath(path.resolve(workspace, saved));
    const inside = path.relative(await realpath(workspace), real);
    return inside !== "" && !inside.startsWith("..") && !path.isAbsolute(inside) ? real : undefined;
  } catch {
    return undefined;
  }
}

async function readUpTo(file: string, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean } | undefined> {
  let handle;
  try {
    handle = await open(file, "r");
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, Math.min(filled, maxBytes)), truncated: filled > maxBytes };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

function summaryOf(attachment: InboundAttachment): string {
  const size = attachment.sizeBytes !== undefined ? megabytes(attachment.sizeBytes) : undefined;
  return [attachment.kind, attachment.name, attachment.mimeType, size].filter(Boolean).join(", ");
}

function megabytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
