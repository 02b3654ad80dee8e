/** The running gateway's `/readyz` answer, as far as `hermes status` reads it. */
export interface ReadinessBody {
  status: string;
  checks: Record<string, { ok: boolean; detail?: string }>;
  platforms: Record<string, { state: string; lastError?: string | null; since?: number | string | null }>;
}

export function parseReadinessBody(text: string): ReadinessBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || typeof (value as { status?: unknown }).status !== "string") return undefined;
  const body = value as { status: string; checks?: unknown; platforms?: unknown };
  return { status: body.status, checks: recordOf(body.checks) as ReadinessBody["checks"], platforms: recordOf(body.platforms) as ReadinessBody["platforms"] };
}

function recordOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => typeof entry === "object" && entry !== null));
}

/** One line per check and per platform. */
export function formatReadiness(address: string, body: ReadinessBody): string {
  const lines = [`Gateway at ${address}: ${body.status}`];
  const checks = Object.entries(body.checks);
  if (checks.length > 0) lines.push("", "Checks:");
  for (const [name, check] of checks) lines.push(`  ${check.ok ? "ok  " : "FAIL"}  ${name.padEnd(10)}  ${printable(check.detail ?? "")}`.trimEnd());
  const platforms = Object.entries(body.platforms);
  if (platforms.length > 0) lines.push("", "Platforms:");
  for (const [name, platform] of platforms) {
    const since = platform.since === undefined || platform.since === null ? "" : `  since ${when(platform.since)}`;
    const error = platform.lastError ? `  last error: ${printable(platform.lastError)}` : "";
    lines.push(`  ${name.padEnd(10)}  ${printable(String(platform.state)).padEnd(10)}${since}${error}`.trimEnd());
  }
  return lines.join("\n");
}

function when(since: number | string): string {
  const date = new Date(since);
  return Number.isNaN(date.getTime()) ? String(since) : date.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

// Error texts come from platforms over the network: no terminal escapes from them.
function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
}
