/** Drops properties whose value is undefined, so optional settings are absent rather than present-but-undefined. */
export function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
