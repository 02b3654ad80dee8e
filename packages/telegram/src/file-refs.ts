import type { InboundAttachment } from "@hermes/gateway";
import type { Message } from "grammy/types";

/** A file a message carries, before it is downloaded. */
export interface FileRef {
  kind: InboundAttachment["kind"];
  fileId: string;
  name: string;
  mimeType?: string;
  sizeBytes?: number;
}

/**
 * The files of a message: the largest size of a photo, documents, audio, voice notes and videos. An animation also
 * arrives as a document; it is taken once.
 */
export function fileRefsOf(message: Message): FileRef[] {
  const refs: FileRef[] = [];
  const photo = largestPhoto(message.photo);
  if (photo) refs.push(ref("image", photo.file_id, "photo.jpg", "image/jpeg", photo.file_size));
  if (message.animation) {
    const a = message.animation;
    refs.push(ref("video", a.file_id, a.file_name ?? "animation.mp4", a.mime_type, a.file_size));
  } else if (message.document) {
    const d = message.document;
    refs.push(ref("document", d.file_id, d.file_name ?? "document", d.mime_type, d.file_size));
  }
  if (message.audio) refs.push(ref("audio", message.audio.file_id, message.audio.file_name ?? "audio", message.audio.mime_type, message.audio.file_size));
  if (message.voice) refs.push(ref("audio", message.voice.file_id, "voice.ogg", message.voice.mime_type ?? "audio/ogg", message.voice.file_size));
  if (message.video) refs.push(ref("video", message.video.file_id, message.video.file_name ?? "video.mp4", message.video.mime_type, message.video.file_size));
  if (message.video_note) refs.push(ref("video", message.video_note.file_id, "video-note.mp4", "video/mp4", message.video_note.file_size));
  return refs;
}

function largestPhoto(sizes: Message["photo"]): NonNullable<Message["photo"]>[number] | undefined {
  if (!sizes || sizes.length === 0) return undefined;
  return sizes.reduce((best, size) => (area(size) > area(best) ? size : best));
}

function area(size: { width: number; height: number; file_size?: number }): number {
  return size.width * size.height || (size.file_size ?? 0);
}

function ref(kind: FileRef["kind"], fileId: string, name: string, mimeType: string | undefined, sizeBytes: number | undefined): FileRef {
  const file: FileRef = { kind, fileId, name };
  if (mimeType !== undefined) file.mimeType = mimeType;
  if (sizeBytes !== undefined) file.sizeBytes = sizeBytes;
  return file;
}
