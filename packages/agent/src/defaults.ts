/**
 * Merges a partial override over defaults, ignoring keys whose value is undefined: `{ maxSteps: config.x }` with an
 * unset `x` must keep the default rather than switch the limit off.
 */
export function withDefaults<T extends object>(defaults: T, override: Partial<T> | undefined): T {
  const merged = { ...defaults };
  if (!override) return merged;
  for (const [key, value] of Object.entries(override)) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}
