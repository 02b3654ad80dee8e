/** Says why a config file could not be read, in words an operator can act on. */
export function describeReadFailure(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "cannot be read: permission denied";
    case "EISDIR":
      return "is a folder, not a file";
    default:
      return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** True when the error only means the optional file is not there. */
export function isMissingFile(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  return code === "ENOENT" || code === "ENOTDIR";
}
