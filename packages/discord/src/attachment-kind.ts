import type { InboundAttachment } from "@hermes/gateway";

const DOCUMENT_EXTENSIONS = new Set(["pdf", "txt", "md", "csv", "json", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "rtf", "html", "xml", "yaml", "yml", "log"]);
const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp", "bmp", "svg"]);
const AUDIO_EXTENSIONS = new Set(["mp3", "ogg", "wav", "m4a", "flac", "opus"]);
const VIDEO_EXTENSIONS = new Set(["mp4", "mov", "webm", "mkv", "avi"]);

/** What kind of file the model is told it got: from the MIME type Discord reports, else from the name. */
export function attachmentKind(contentType: string | undefined, name: string): InboundAttachment["kind"] {
  const mime = contentType?.toLowerCase() ?? "";
  if (mime.startsWith("image/")) return "image";
  if (mime.startsWith("audio/")) return "audio";
  if (mime.startsWith("video/")) return "video";
  if (mime.startsWith("text/") || mime.startsWith("application/")) return "document";
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? "";
  if (IMAGE_EXTENSIONS.has(extension)) return "image";
  if (AUDIO_EXTENSIONS.has(extension)) return "audio";
  if (VIDEO_EXTENSIONS.has(extension)) return "video";
  if (DOCUMENT_EXTENSIONS.has(extension)) return "document";
  return "other";
}

/** A file name chosen by a stranger, made safe to use inside our folder: no path, no odd characters, bounded length. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .replace(/[^\w.-]+/g, "_")
    .replace(/^[.]+/, "")
    .slice(-100);
  return cleaned.length > 0 ? cleaned : "file";
}

const DISCORD_CDN_HOSTS = new Set(["cdn.discordapp.com", "media.discordapp.net"]);

/**
 * Attachment URLs arrive inside message payloads; fetching an arbitrary one would let anyone who can forge a payload
 * make the bot request internal addresses. Only Discord's CDN (https) and the overridden REST host are fetched.
 */
export function isTrustedAttachmentUrl(url: string, restBase: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "https:" && DISCORD_CDN_HOSTS.has(parsed.hostname)) return true;
  try {
    const rest = new URL(restBase);
    return rest.hostname !== "discord.com" && parsed.origin === rest.origin;
  } catch {
    return false;
  }
}
