import type { SpeechToTextSettings } from "./gateway-config.js";
import type { SettingReader } from "./setting-reader.js";
import type { SettingInfo } from "./settings.js";

export const DEFAULT_STT_MODEL = "whisper-1";

/** Voice transcription: part of the SETTINGS list, in its place. */
export const VOICE_SETTINGS = [
  {
    name: "HERMES_STT_BASE_URL",
    description:
      "OpenAI-compatible speech-to-text endpoint (e.g. https://api.openai.com/v1): voice notes and audio files are sent to its /audio/transcriptions and the transcript is the user's message; unset, the bot tells the user voice messages are not enabled",
    default: "",
    secret: false,
  },
  {
    name: "HERMES_STT_MODEL",
    description: "Transcription model asked for at HERMES_STT_BASE_URL",
    default: DEFAULT_STT_MODEL,
    secret: false,
  },
  {
    name: "HERMES_STT_API_KEY",
    description: "Key sent as `Authorization: Bearer <key>` to HERMES_STT_BASE_URL (none is sent when unset)",
    default: "",
    secret: true,
  },
] as const satisfies readonly SettingInfo[];

/** Absent when HERMES_STT_BASE_URL is unset (or invalid, which is reported). */
export function readSpeechToTextSettings(reader: SettingReader): SpeechToTextSettings | undefined {
  const baseUrl = reader.httpUrl("HERMES_STT_BASE_URL");
  const model = reader.text("HERMES_STT_MODEL");
  const apiKey = readKey(reader);
  if (baseUrl === undefined) {
    if (!reader.has("HERMES_STT_BASE_URL") && (model !== undefined || apiKey !== undefined)) {
      reader.warn("HERMES_STT_MODEL or HERMES_STT_API_KEY is set but HERMES_STT_BASE_URL is not, so voice messages are not transcribed");
    }
    return undefined;
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ""), model: model ?? DEFAULT_STT_MODEL, ...(apiKey !== undefined && { apiKey }) };
}

/** A bearer key travels in one header word: visible ASCII without spaces. */
function readKey(reader: SettingReader): string | undefined {
  const key = reader.text("HERMES_STT_API_KEY");
  if (key === undefined || /^[\x21-\x7e]+$/.test(key)) return key;
  reader.reject("HERMES_STT_API_KEY", "must be printable ASCII without spaces (it is sent as `Authorization: Bearer <key>`)", { quoteValue: false });
  return undefined;
}
