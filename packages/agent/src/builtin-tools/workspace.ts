import { promises as fs } from "node:fs";
import path from "node:path";
import { sessionFolderName } from "../tools/session-folders.js";
import { errorCode } from "./fs-errors.js";

/** The folder tree the file tools may touch. All fields hold absolute, symlink-resolved paths. */
export interface Workspace {
  readonly root: string;
  readonly readOnlyRoots: readonly string[];
  /**
   * A read-only root with one folder per session (see session-folders.ts): a path below it is allowed only inside
   * the folder of the session asking, because other sessions' saved outputs belong to other conversations.
   */
  readonly sessionScopedRoot?: string;
}

export interface WorkspaceOptions {
  readOnlyRoots?: string[];
  sessionScopedRoot?: string;
}

/** Who is asking; needed for paths under `sessionScopedRoot`, which are refused without it. */
export interface ResolveScope {
  sessionId?: string;
}

/** `display` is relative to the workspace root, or absolute for paths in a read-only root. */
export type ResolvedPath = { ok: true; path: string; display: string } | { ok: false; error: string };

export type AccessMode = "read" | "write";

type RealPath = { ok: true; path: string } | { ok: false; reason: "loop" | "inaccessible" };

// Matches the kernel's usual limit, so a chain the OS would follow is followed here too.
const MAX_LINK_HOPS = 40;
const MAX_ECHOED_PATH_CHARS = 200;

export async function createWorkspace(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
  const absoluteRoot = path.resolve(root);
  await fs.mkdir(absoluteRoot, { recursive: true });
  const realRoot = await fs.realpath(absoluteRoot);
  const readOnlyRoots: string[] = [];
  for (const candidate of options.readOnlyRoots ?? []) {
    const real = await resolveReal(path.resolve(candidate), 0);
    // A root that cannot be resolved would be compared against the wrong path, so it grants nothing.
    if (real.ok) readOnlyRoots.push(real.path);
  }
  const scoped = options.sessionScopedRoot === undefined ? undefined : await resolveReal(path.resolve(options.sessionScopedRoot), 0);
  const sessionScopedRoot = scoped?.ok === true ? { sessionScopedRoot: scoped.path } : {};
  return Object.freeze({ root: realRoot, readOnlyRoots: Object.freeze(readOnlyRoots), ...sessionScopedRoot });
}

/**
 * Maps a path requested by the model to a real path the tools may use, or says why not.
 * Checks both the path as written and its symlink-resolved target, so neither `..` nor a link can leave the allowed roots.
 */
export async function resolveInWorkspace(
  ws: Workspace,
  requested: string,
  mode: AccessMode,
  scope: ResolveScope = {},
): Promise<ResolvedPath> {
  const shapeProblem = describeShapeProblem(requested);
  if (shapeProblem !== undefined) return { ok: false, error: shapeProblem };

  const lexical = path.resolve(ws.root, requested);
  const lexicalAccess = accessFor(ws, lexical, mode, scope);
  if (lexicalAccess !== "allowed") return { ok: false, error: refusal(ws, requested, lexicalAccess, false, scope) };

  const real = await resolveReal(lexical, 0);
  if (!real.ok) {
    const why = real.reason === "loop" ? "has too many levels of symbolic links" : "cannot be accessed (permission denied)";
    return { ok: false, error: `Path ${quote(requested)} ${why}.` };
  }
  const realAccess = accessFor(ws, real.path, mode, scope);
  if (realAccess !== "allowed") return { ok: false, error: refusal(ws, requested, realAccess, true, scope) };

  return { ok: true, path: real.path, display: displayPath(ws, lexical) };
}

/** The absolute path a path-scoped tool declares for scheduling; never throws, returns [] when unknown. */
export function declaredPaths(ws: Workspace, requested: unknown): string[] {
  if (typeof requested !== "string" || requested.length === 0) return [];
  try {
    return [path.resolve(ws.root, requested)];
  } catch {
    return [];
  }
}

export function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  if (relative === "") return true;
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

function describeShapeProblem(requested: string): string | undefined {
  if (typeof requested !== "string" || requested.trim() === "") return "Path is empty; give a path relative to the workspace root.";
  if (requested.includes("\0")) return "Path contains a NUL byte.";
  if (requested.startsWith("~")) {
    return `Path ${quote(requested)} uses "~", which is not supported; give a path relative to the workspace root.`;
  }
  return undefined;
}

type Access = "allowed" | "outside" | "read-only" | "other-session";

interface RootEntry {
  root: string;
  writable: boolean;
  sessionScoped: boolean;
}

function accessFor(ws: Workspace, candidate: string, mode: AccessMode, scope: ResolveScope): Access {
  // The deepest containing root decides, so a read-only root nested in the workspace stays read-only
  // and a workspace nested in a read-only root stays writable.
  let owner: RootEntry | undefined;
  const roots: RootEntry[] = [
    { root: ws.root, writable: true, sessionScoped: false },
    ...ws.readOnlyRoots.map((root) => ({ root, writable: false, sessionScoped: false })),
    ...(ws.sessionScopedRoot === undefined ? [] : [{ root: ws.sessionScopedRoot, writable: false, sessionScoped: true }]),
  ];
  for (const entry of roots) {
    if (!isWithin(entry.root, candidate)) continue;
    if (owner === undefined || entry.root.length > owner.root.length || (entry.root === owner.root && entry.sessionScoped)) owner = entry;
  }
  if (owner === undefined) return "outside";
  if (mode === "write" && !owner.writable) return "read-only";
  if (owner.sessionScoped) {
    const own = ownSessionFolder(owner.root, scope);
    if (own === undefined || !isWithin(own, candidate)) return "other-session";
  }
  return "allowed";
}

function ownSessionFolder(sessionScopedRoot: string, scope: ResolveScope): string | undefined {
  return scope.sessionId === undefined ? undefined : path.join(sessionScopedRoot, sessionFolderName(scope.sessionId));
}

function refusal(ws: Workspace, requested: string, access: Exclude<Access, "allowed">, throughLink: boolean, scope: ResolveScope): string {
  const via = throughLink ? " through a symbolic link" : "";
  if (access === "other-session") {
    const own = ws.sessionScopedRoot === undefined ? undefined : ownSessionFolder(ws.sessionScopedRoot, scope);
    const allowed = own === undefined ? "" : ` Only this session's folder, ${own}, can be read there.`;
    return `Path ${quote(requested)} leads${via} into saved output of another session, which is not readable from this one.${allowed}`;
  }
  if (access === "read-only") {
    return `Path ${quote(requested)} leads${via} into a read-only folder; writes are only allowed inside the workspace.`;
  }
  return `Path ${quote(requested)} leads${via} outside the workspace; only paths inside the workspace are allowed.`;
}

function displayPath(ws: Workspace, lexical: string): string {
  if (!isWithin(ws.root, lexical)) return lexical;
  const relative = path.relative(ws.root, lexical);
  return relative === "" ? "." : relative;
}

function quote(requested: string): string {
  const shortened =
    requested.length > MAX_ECHOED_PATH_CHARS ? `${requested.slice(0, MAX_ECHOED_PATH_CHARS)}…` : requested;
  return JSON.stringify(shortened);
}

/** realpath of the longest existing prefix with the rest appended; dangling links are followed by hand. */
async function resolveReal(target: string, hops: number): Promise<RealPath> {
  try {
    return { ok: true, path: await fs.realpath(target) };
  } catch (error) {
    const code = errorCode(error);
    if (code === "ELOOP") return { ok: false, reason: "loop" };
    if (code !== "ENOENT" && code !== "ENOTDIR") return { ok: false, reason: "inaccessible" };
  }

  const parent = path.dirname(target);
  if (parent === target) return { ok: true, path: target };
  const realParent = await resolveReal(parent, hops);
  if (!realParent.ok) return realParent;

  const joined = path.join(realParent.path, path.basename(target));
  const linkTarget = await readLinkOrUndefined(joined);
  if (linkTarget === undefined) return { ok: true, path: joined };
  if (hops >= MAX_LINK_HOPS) return { ok: false, reason: "loop" };
  return resolveReal(path.resolve(realParent.path, linkTarget), hops + 1);
}

async function readLinkOrUndefined(target: string): Promise<string | undefined> {
  try {
    return await fs.readlink(target);
  } catch {
    return undefined;
  }
}
