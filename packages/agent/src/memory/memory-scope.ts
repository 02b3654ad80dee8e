import { createHash } from "node:crypto";
import path from "node:path";

/** Whose memory a conversation uses (HERMES_MEMORY_SCOPE). */
export type MemoryScopeMode = "user" | "chat" | "shared";

/**
 * One scope's memory: its id (handed to external providers so they can isolate too) and where its two files live.
 * MEMORY.md and USER.md may live in different folders: in a shared chat the notes are the chat's, USER.md the sender's.
 */
export interface MemoryScope {
  id: string;
  /** Folder of MEMORY.md. */
  memoryDir: string;
  /** Folder of USER.md. */
  userDir: string;
  /** The folders that belong to the person (what /forget erases); none when the files are a group chat's. */
  ownDirs: readonly string[];
  /** In a shared session: the person's own scope, whose provider entries `/forget` erases too. */
  ownScope?: MemoryScope;
}

/** Who is talking where; all ids come from platforms and are untrusted. */
export interface MemoryScopeSubject {
  platform: string;
  userId: string;
  chatId: string;
  /** Several people share the session (a thread, or a group with shared sessions). */
  sharedSession: boolean;
  /** The chat is a direct conversation with the person (not a group, channel or thread). */
  directChat: boolean;
}

const MAX_PART_LENGTH = 120;

/**
 * A platform id as one safe folder name: percent-encoded (so no separator, control character or `..` survives) with
 * dots encoded too. Names this encoding cannot produce (starting with `%` and a non-hex letter) mark the empty and
 * the over-long id, so no two ids share a folder.
 */
export function encodePathPart(part: string): string {
  if (part === "") return "%empty";
  // encodeURIComponent throws on a lone surrogate; hashing its UTF-16 units keeps it apart from its U+FFFD look-alike.
  if (!isWellFormed(part)) return `%utf16-${createHash("sha256").update(Buffer.from(part, "utf16le")).digest("hex")}`;
  const encoded = encodeURIComponent(part).replace(/\./g, "%2E").replace(/\*/g, "%2A");
  if (encoded.length <= MAX_PART_LENGTH) return encoded;
  return `%sha256-${createHash("sha256").update(part).digest("hex")}`;
}

function isWellFormed(text: string): boolean {
  return !/\p{Surrogate}/u.test(text);
}

/** The folder of one person's files: `<memoryRoot>/users/<platform>/<userId>`. */
export function userMemoryDir(memoryRoot: string, platform: string, userId: string): string {
  return path.join(memoryRoot, "users", encodePathPart(platform), encodePathPart(userId));
}

/** The folder of one chat's files: `<memoryRoot>/chats/<platform>/<chatId>`. */
export function chatMemoryDir(memoryRoot: string, platform: string, chatId: string): string {
  return path.join(memoryRoot, "chats", encodePathPart(platform), encodePathPart(chatId));
}

/** The scope of a user's own files, as the operator CLI addresses it (`platform:userId`). */
export function userMemoryScope(memoryRoot: string, platform: string, userId: string): MemoryScope {
  const dir = userMemoryDir(memoryRoot, platform, userId);
  return { id: `user:${encodePathPart(platform)}:${encodePathPart(userId)}`, memoryDir: dir, userDir: dir, ownDirs: [dir] };
}

/** The memory scope of one message under the configured mode. */
export function memoryScopeOf(mode: MemoryScopeMode, memoryRoot: string, subject: MemoryScopeSubject): MemoryScope {
  if (mode === "shared") return { id: "shared", memoryDir: memoryRoot, userDir: memoryRoot, ownDirs: [memoryRoot] };
  const platform = encodePathPart(subject.platform);
  const chatId = `chat:${platform}:${encodePathPart(subject.chatId)}`;
  const chatDir = chatMemoryDir(memoryRoot, subject.platform, subject.chatId);
  // A group's pair in chat mode is everyone's in it, so no single member can erase it with /forget.
  if (mode === "chat") return { id: chatId, memoryDir: chatDir, userDir: chatDir, ownDirs: subject.directChat ? [chatDir] : [] };
  const own = userMemoryScope(memoryRoot, subject.platform, subject.userId);
  if (!subject.sharedSession) return own;
  return { id: `${own.id}@${chatId}`, memoryDir: chatDir, userDir: own.userDir, ownDirs: own.ownDirs, ownScope: own };
}
