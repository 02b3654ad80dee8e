import type { SettingReader } from "./setting-reader.js";
import type { SettingInfo } from "./settings.js";

/** The OpenAI-compatible API: part of the SETTINGS list, in its place. */
export const API_SETTINGS = [
  {
    name: "HERMES_API_SERVER_KEY",
    description:
      "When set, the gateway HTTP server answers the OpenAI-compatible API at /v1 (GET /v1/models, POST /v1/chat/completions) for requests with `Authorization: Bearer <key>`",
    default: "",
    secret: true,
  },
] as const satisfies readonly SettingInfo[];

/** Absent when unset (the API is off) or invalid (reported). */
export function readApiServerKey(reader: SettingReader): string | undefined {
  const key = reader.text("HERMES_API_SERVER_KEY");
  if (key === undefined) return undefined;
  // The key travels in one header word; a short one could be guessed by anyone who can reach the port.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    reader.reject("HERMES_API_SERVER_KEY", "must be printable ASCII without spaces (clients send it as `Authorization: Bearer <key>`)", { quoteValue: false });
    return undefined;
  }
  if (key.length < 16) {
    reader.reject("HERMES_API_SERVER_KEY", "must be at least 16 characters long (e.g. `openssl rand -hex 24`)", { quoteValue: false });
    return undefined;
  }
  return key;
}
