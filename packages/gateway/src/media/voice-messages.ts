import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { Counter, Logger, MetricsRegistry } from "@hermes/agent";
import type { InboundAttachment, InboundMessage } from "../core/inbound.js";
import type { Transcriber } from "./transcriber.js";

export const VOICE_NOT_ENABLED_NOTICE = "Voice messages are not enabled on this bot, so I can't listen to this one. Please type your message instead.";
export const TRANSCRIPTION_FAILED_NOTICE = "I couldn't transcribe your voice message. Please try again in a moment, or type your message instead.";
export const NO_SPEECH_NOTICE = "I couldn't make out any words in your voice message. Please try again, or type your message instead.";

export interface VoiceMessagesOptions {
  /** Absent when HERMES_STT_BASE_URL is unset. */
  transcriber?: Transcriber;
  /** The agent's workspace: the adapters save files there, and relative paths (the database mode's) start there. */
  workspace: string;
  logger: Logger;
  /** Counts each voice or audio file by what became of it (see voiceTranscriptionsMetric). */
  transcriptions?: Counter;
}

export type TranscriptionOutcome = NonNullable<InboundAttachment["transcription"]>;

/** `hermes_voice_transcriptions_total{platform,outcome}`: voice and audio files transcribed, failed, or not enabled. */
export function voiceTranscriptionsMetric(registry: MetricsRegistry): Counter {
  return registry.counter("voice_transcriptions", "Voice notes and audio files by outcome: transcribed, failed (the cause is logged) or not_enabled (no HERMES_STT_BASE_URL).", ["platform", "outcome"]);
}

/** What becomes of a message with voice notes or audio files. */
export interface VoiceOutcome {
  /** The message to save and answer: transcripts (or a word on what was not transcribed) in its text, its audio marked. */
  message: InboundMessage;
  /** Told to the user first: voice is not enabled, or a transcription failed. */
  notice?: string;
  /** False for a message of audio only that could not be transcribed: nothing is left for the model to answer. */
  run: boolean;
}

export interface VoiceMessages {
  /** Undefined for a message with no audio still to handle. */
  prepare(message: InboundMessage): Promise<VoiceOutcome | undefined>;
}

type Attempt = { ok: true; text: string } | { ok: false; notice: string; reason: string; detail: string };

/**
 * Voice notes and audio files become text the model can answer: each downloaded audio attachment is transcribed and
 * its transcript added to the message's text after what the user typed (a caption), marked as a transcript.
 */
export function createVoiceMessages(options: VoiceMessagesOptions): VoiceMessages {
  const transcribeOne = async (attachment: InboundAttachment & { localPath: string }): Promise<Attempt> => {
    const { transcriber } = options;
    if (!transcriber) return { ok: false, notice: VOICE_NOT_ENABLED_NOTICE, reason: "not_enabled", detail: "HERMES_STT_BASE_URL is not set" };
    const file = await insideWorkspace(attachment.localPath, options.workspace);
    if (!file.ok) return { ok: false, notice: TRANSCRIPTION_FAILED_NOTICE, reason: "unreadable", detail: file.detail };
    if (file.size > transcriber.maxBytes) {
      const limit = `${Math.floor(transcriber.maxBytes / (1024 * 1024))} MB`;
      return { ok: false, notice: `I couldn't transcribe your voice message: it is larger than the ${limit} a transcription can take. Please send a shorter one.`, reason: "too_large", detail: `${file.size} bytes` };
    }
    const bytes = await readFile(file.path).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    if (bytes instanceof Error) return { ok: false, notice: TRANSCRIPTION_FAILED_NOTICE, reason: "unreadable", detail: bytes.message };
    const result = await transcriber.transcribe({ bytes, fileName: path.basename(attachment.name ?? attachment.localPath), ...(attachment.mimeType !== undefined && { mimeType: attachment.mimeType }) });
    if (!result.ok) return { ok: false, notice: TRANSCRIPTION_FAILED_NOTICE, reason: result.reason, detail: result.detail };
    if (result.text === "") return { ok: false, notice: NO_SPEECH_NOTICE, reason: "no_speech", detail: "the transcript is empty" };
    return result;
  };

  return {
    async prepare(message) {
      const pending = message.attachments.some(isPendingAudio);
      if (!pending) return undefined;
      const sections: string[] = [];
      const notices = new Set<string>();
      let unheard = 0;
      const attachments: InboundAttachment[] = [];
      for (const attachment of message.attachments) {
        if (!isPendingAudio(attachment)) {
          attachments.push(attachment);
          continue;
        }
        const attempt = await transcribeOne(attachment);
        const outcome: TranscriptionOutcome = attempt.ok ? "transcribed" : attempt.reason === "not_enabled" ? "not_enabled" : "failed";
        options.transcriptions?.inc(1, { platform: message.platform, outcome });
        attachments.push({ ...attachment, transcription: outcome });
        if (attempt.ok) {
          sections.push(`[${labelOf(attachment)}, transcribed]: ${attempt.text}`);
          continue;
        }
        unheard += 1;
        notices.add(attempt.notice);
        const log = attempt.reason === "not_enabled" ? options.logger.info.bind(options.logger) : options.logger.warn.bind(options.logger);
        log("voice message not transcribed", { platform: message.platform, reason: attempt.reason, detail: attempt.detail });
      }
      const typed = message.text.trim() !== "" || attachments.some((attachment) => attachment.kind !== "audio");
      const run = sections.length > 0 || typed;
      if (unheard > 0 && run) sections.push(`[${unheard === 1 ? "A voice message" : `${unheard} voice messages`} sent with this could not be transcribed; the user has been told.]`);
      const text = [message.text, ...sections].filter((part) => part.trim() !== "").join("\n\n");
      const notice = notices.size === 0 ? undefined : [...notices].join("\n");
      return { message: { ...message, text, attachments }, run, ...(notice !== undefined && { notice }) };
    },
  };
}

function isPendingAudio(attachment: InboundAttachment): attachment is InboundAttachment & { localPath: string } {
  return attachment.kind === "audio" && attachment.localPath !== undefined && attachment.transcription === undefined;
}

// Telegram names a voice note voice.ogg, Discord voice-message.ogg, Slack audio_message…; other audio is a file.
function labelOf(attachment: InboundAttachment): string {
  const name = attachment.name ?? "";
  return name === "" || /^(voice|audio_message)/i.test(name) ? "Voice message" : `Audio file "${name.slice(0, 100)}"`;
}

/** Only files inside the workspace are read: the path comes from a saved message, which is untrusted input. */
async function insideWorkspace(localPath: string, workspace: string): Promise<{ ok: true; path: string; size: number } | { ok: false; detail: string }> {
  try {
    const root = await realpath(workspace);
    const file = await realpath(path.resolve(workspace, localPath));
    const relative = path.relative(root, file);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return { ok: false, detail: "the file is outside the workspace" };
    const info = await stat(file);
    return info.isFile() ? { ok: true, path: file, size: info.size } : { ok: false, detail: "not a file" };
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}
