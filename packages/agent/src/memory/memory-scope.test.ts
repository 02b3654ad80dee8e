import path from "node:path";
import { describe, expect, it } from "vitest";
import { chatMemoryDir, encodePathPart, memoryScopeOf, userMemoryDir } from "./memory-scope.js";

const root = path.join(path.sep, "home", "bot", "memory");
const dm = { platform: "telegram", userId: "42", chatId: "42", sharedSession: false, directChat: true };
const group = { platform: "telegram", userId: "42", chatId: "-100", sharedSession: true, directChat: false };

describe("memoryScopeOf", () => {
  it("gives each person their own pair in user mode", () => {
    const scope = memoryScopeOf("user", root, dm);
    expect(scope).toEqual({ id: "user:telegram:42", memoryDir: path.join(root, "users", "telegram", "42"), userDir: path.join(root, "users", "telegram", "42"), ownDirs: [path.join(root, "users", "telegram", "42")] });
    expect(memoryScopeOf("user", root, { ...dm, userId: "43", chatId: "43" }).id).not.toBe(scope.id);
  });

  it("uses the chat's MEMORY.md and the sender's own USER.md in a shared session", () => {
    const scope = memoryScopeOf("user", root, group);
    expect(scope.memoryDir).toBe(path.join(root, "chats", "telegram", "-100"));
    expect(scope.userDir).toBe(path.join(root, "users", "telegram", "42"));
    expect(scope.ownDirs).toEqual([path.join(root, "users", "telegram", "42")]);
    expect(scope.id).toBe("user:telegram:42@chat:telegram:-100");
    expect(memoryScopeOf("user", root, { ...group, userId: "7" }).userDir).toBe(path.join(root, "users", "telegram", "7"));
  });

  it("a group with per-user sessions is the person's own scope", () => {
    expect(memoryScopeOf("user", root, { ...group, sharedSession: false }).id).toBe("user:telegram:42");
  });

  it("keys both files by chat in chat mode, and keeps the global pair in shared mode", () => {
    const chat = memoryScopeOf("chat", root, group);
    expect(chat.memoryDir).toBe(chat.userDir);
    expect(chat.memoryDir).toBe(path.join(root, "chats", "telegram", "-100"));
    expect(chat.id).toBe("chat:telegram:-100");
    // A group's pair is everyone's in it; a DM's is the person's.
    expect(chat.ownDirs).toEqual([]);
    expect(memoryScopeOf("chat", root, { ...group, sharedSession: false }).ownDirs).toEqual([]);
    expect(memoryScopeOf("chat", root, dm).ownDirs).toEqual([path.join(root, "chats", "telegram", "42")]);
    expect(memoryScopeOf("shared", root, dm)).toEqual({ id: "shared", memoryDir: root, userDir: root, ownDirs: [root] });
  });
});

describe("path safety", () => {
  const hostile = ["..", ".", "../../etc", "a/b", "a\\b", "x\u0000y", "line\nbreak", "\u001b[31m", "%2E%2E", "*", "", "lone\uD800", "\uDC00x"];

  it("never lets an id leave its folder or name a special entry", () => {
    for (const id of hostile) {
      const part = encodePathPart(id);
      expect(part).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
      expect(part).not.toMatch(/^\.+$/);
      expect(part.length).toBeGreaterThan(0);
      const dir = userMemoryDir(root, "telegram", id);
      expect(path.dirname(dir)).toBe(path.join(root, "users", "telegram"));
      expect(path.dirname(chatMemoryDir(root, id, "1"))).toBe(path.join(root, "chats", part));
    }
  });

  it("gives different ids different folders", () => {
    const parts = new Set([...hostile, "A", "a", "%", "%empty", "x".repeat(500), "x".repeat(501), "lone\uFFFD"].map(encodePathPart));
    expect(parts.size).toBe(hostile.length + 7);
  });

  it("keeps ordinary ids readable and bounds long ones", () => {
    expect(encodePathPart("-1001234567890")).toBe("-1001234567890");
    expect(encodePathPart("U02ABCDEF")).toBe("U02ABCDEF");
    expect(encodePathPart("x".repeat(500))).toMatch(/^%sha256-[0-9a-f]{64}$/);
  });
});
