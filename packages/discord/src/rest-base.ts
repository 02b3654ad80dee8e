export const DEFAULT_DISCORD_API = "https://discord.com/api";

/**
 * The REST base discord.js calls `rest.api`: the URL that `/v10/...` routes are appended to, e.g.
 * `https://discord.com/api` or a local stand-in `http://127.0.0.1:8080/api`. A bare origin gets Discord's `/api` path
 * (every Discord-compatible server and proxy serves it there); a trailing slash or version segment is dropped rather
 * than producing `/api/v10/v10/...`.
 */
export function restBaseFrom(apiUrl: string | undefined): string {
  const trimmed = apiUrl?.trim();
  if (!trimmed) return DEFAULT_DISCORD_API;
  const base = trimmed.replace(/\/+$/, "").replace(/\/v\d+$/, "");
  try {
    return new URL(base).pathname === "/" ? `${base}/api` : base;
  } catch {
    return base;
  }
}
