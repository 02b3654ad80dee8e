import path from "node:path";
import type { InboundAttachment } from "../core/inbound.js";

/** The image formats every vision model of pi-ai's providers takes. */
export type ImageMimeType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

/**
 * The format the bytes really are, whatever the platform or the sender claimed: a provider answers a mislabelled
 * image with an error that would fail the whole run, so only bytes that start like one of these go as an image.
 */
export function imageFormatOf(bytes: Uint8Array): ImageMimeType | undefined {
  const starts = (signature: readonly number[], at = 0): boolean => signature.every((byte, i) => bytes[at + i] === byte);
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

const IMAGE_EXTENSIONS = new Set([".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic", ".bmp", ".tif", ".tiff"]);

/** Sent as a photo, or a file that says it is a picture (an image sent "as a file" arrives as a document). */
export function looksLikeImage(attachment: InboundAttachment): boolean {
  if (attachment.kind === "image") return true;
  if (attachment.mimeType?.toLowerCase().startsWith("image/")) return true;
  return IMAGE_EXTENSIONS.has(extensionOf(attachment));
}

const TEXT_MIME_TYPES = new Set([
  "application/json",
  "application/ld+json",
  "application/xml",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/javascript",
  "application/x-javascript",
  "application/typescript",
  "application/x-sh",
  "application/x-shellscript",
  "application/sql",
  "application/x-httpd-php",
  "application/x-python",
  "application/x-ndjson",
]);

// Platforms often send source files as application/octet-stream, so the name decides for these.
const TEXT_EXTENSIONS = new Set(
  (
    ".txt .md .markdown .rst .csv .tsv .json .jsonl .ndjson .yaml .yml .toml .ini .cfg .conf .env.example .xml .html .htm .css .scss " +
    ".js .mjs .cjs .jsx .ts .tsx .py .rb .go .rs .java .kt .kts .swift .c .h .cc .cpp .hpp .cs .php .pl .lua .r .scala .sh .bash .zsh " +
    ".fish .ps1 .sql .graphql .proto .tf .hcl .dockerfile .makefile .gradle .vue .svelte .log .diff .patch .tex .srt .vtt"
  ).split(" "),
);

/** A document worth inlining as text; the bytes still have to decode as UTF-8 (see attachment-content.ts). */
export function looksLikeText(attachment: InboundAttachment): boolean {
  const mime = attachment.mimeType?.toLowerCase().split(";")[0]?.trim();
  if (mime?.startsWith("text/")) return true;
  if (mime !== undefined && (TEXT_MIME_TYPES.has(mime) || mime.endsWith("+json") || mime.endsWith("+xml"))) return true;
  const base = path.basename(attachment.name ?? "").toLowerCase();
  return TEXT_EXTENSIONS.has(extensionOf(attachment)) || base === "dockerfile" || base === "makefile";
}

function extensionOf(attachment: InboundAttachment): string {
  return path.extname(attachment.name ?? attachment.localPath ?? "").toLowerCase();
}
