import type { SpeechToTextSettings } from "../config/gateway-config.js";

/** OpenAI's upload limit for /audio/transcriptions; most compatible servers take at least as much. */
export const MAX_TRANSCRIPTION_BYTES = 25 * 1024 * 1024;
export const DEFAULT_TRANSCRIPTION_TIMEOUT_MS = 60_000;
const BODY_EXCERPT_CHARS = 200;

export interface AudioUpload {
  bytes: Uint8Array;
  fileName: string;
  mimeType?: string;
}

export type TranscriptionFailure =
  | { ok: false; reason: "too_large"; detail: string }
  | { ok: false; reason: "timeout"; detail: string }
  | { ok: false; reason: "network"; detail: string }
  | { ok: false; reason: "http"; status: number; detail: string }
  | { ok: false; reason: "bad_response"; detail: string };

export type TranscriptionResult = { ok: true; text: string } | TranscriptionFailure;

export interface TranscriberOptions {
  settings: SpeechToTextSettings;
  fetch?: typeof fetch;
  timeoutMs?: number;
  maxBytes?: number;
}

export interface Transcriber {
  readonly maxBytes: number;
  transcribe(audio: AudioUpload, signal?: AbortSignal): Promise<TranscriptionResult>;
}

/**
 * Speech to text through an OpenAI-compatible `POST {base}/audio/transcriptions` (multipart: `file`, `model`,
 * `response_format=json`, answered `{ "text": … }`). Failures are values whose detail names the HTTP status and the
 * start of the body; the key never appears in them.
 */
export function createTranscriber(options: TranscriberOptions): Transcriber {
  const doFetch = options.fetch ?? fetch;
  const maxBytes = options.maxBytes ?? MAX_TRANSCRIPTION_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TRANSCRIPTION_TIMEOUT_MS;
  const url = `${options.settings.baseUrl}/audio/transcriptions`;

  return {
    maxBytes,
    async transcribe(audio, signal) {
      if (audio.bytes.byteLength > maxBytes) {
        return { ok: false, reason: "too_large", detail: `${audio.bytes.byteLength} bytes is over the ${maxBytes}-byte upload limit` };
      }
      const form = new FormData();
      form.append("file", new Blob([audio.bytes], { type: audio.mimeType ?? "application/octet-stream" }), audio.fileName);
      form.append("model", options.settings.model);
      form.append("response_format", "json");
      const headers: Record<string, string> = { accept: "application/json" };
      if (options.settings.apiKey !== undefined) headers.authorization = `Bearer ${options.settings.apiKey}`;
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
      try {
        const response = await doFetch(url, { method: "POST", headers, body: form, signal: combined });
        const body = await response.text();
        if (!response.ok) return { ok: false, reason: "http", status: response.status, detail: `HTTP ${response.status}: ${excerpt(body)}` };
        return transcriptOf(body);
      } catch (error) {
        if (timeout.aborted) return { ok: false, reason: "timeout", detail: `no answer within ${timeoutMs} ms` };
        return { ok: false, reason: "network", detail: causeOf(error) };
      }
    },
  };
}

function transcriptOf(body: string): TranscriptionResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, reason: "bad_response", detail: `not JSON: ${excerpt(body)}` };
  }
  const text = typeof parsed === "object" && parsed !== null ? (parsed as { text?: unknown }).text : undefined;
  if (typeof text !== "string") return { ok: false, reason: "bad_response", detail: `no "text" string in the answer: ${excerpt(body)}` };
  return { ok: true, text: text.trim() };
}

function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > BODY_EXCERPT_CHARS ? `${flat.slice(0, BODY_EXCERPT_CHARS)}…` : flat;
}

// fetch reports "fetch failed" and keeps the reason (ECONNREFUSED, a DNS failure) in its cause.
function causeOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}
