import path from "node:path";

/** Folder under a state directory that holds one folder per session (oversized tool output and the like). */
export const SESSIONS_FOLDER_NAME = "sessions";

/**
 * The folder name of a session: safe as one path segment whatever the id holds. The spill writer and the file
 * tools' session scope must compute it identically, or a session could not read its own saved output.
 */
export function sessionFolderName(sessionId: string): string {
  const cleaned = sessionId.replace(/[^a-zA-Z0-9_.-]/g, "_").replace(/^\.+/, "_").slice(0, 120);
  return cleaned.length > 0 ? cleaned : "session";
}

export function sessionsRootOf(stateDir: string): string {
  return path.join(stateDir, SESSIONS_FOLDER_NAME);
}

/** Where a session's oversized tool results are written. */
export function toolResultsDirOf(stateDir: string, sessionId: string): string {
  return path.join(sessionsRootOf(stateDir), sessionFolderName(sessionId), "tool-results");
}
