// Substrings that mark a variable as a credential. Deliberately broad: a missing variable is easy to notice and
// pass explicitly, a leaked key is not recoverable.
const SECRET_NAME_PARTS = ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE"];

/** True when a variable must not reach commands the model runs: credentials and the gateway's own HERMES_* settings. */
export function isScrubbedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return upper.startsWith("HERMES_") || SECRET_NAME_PARTS.some((part) => upper.includes(part));
}

/** The environment for a model-run command: `base` without credentials, gateway settings or unset entries. */
export function scrubEnvironment(base: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || isScrubbedVariable(name)) continue;
    env[name] = value;
  }
  return env;
}
