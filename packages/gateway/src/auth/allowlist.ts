/** The operator's allowlist (`HERMES_ALLOWED_USERS` and the per-platform lists), as the configuration parses it. */
export interface AllowedUsersLike {
  readonly everyone: boolean;
  readonly users: ReadonlyArray<{ readonly platform: string; readonly userId: string }>;
}

const ANY_USER = "*";

/** Whether the operator let this user in by configuration: everyone, everyone on the platform, or by id. */
export function isAllowlisted(allowed: AllowedUsersLike, platform: string, userId: string): boolean {
  if (allowed.everyone) return true;
  const wantedPlatform = platform.toLowerCase();
  return allowed.users.some(
    (entry) => entry.platform.toLowerCase() === wantedPlatform && (entry.userId === ANY_USER || entry.userId === userId),
  );
}
