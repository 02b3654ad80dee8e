import type { MemoryEditResult, MemoryReadResult } from "../memory/memory-store.js";

/**
 * The MEMORY.md a review may read and change: the reviewed conversation's own scope, handed in by whoever built
 * the reviewer (a `MemoryStore` on that scope's folder fits). A review never reaches any other memory.
 */
export interface ReflectionMemory {
  /** "user" (USER.md) is only read, to keep what it says about the person out of shared skills. */
  read(target: "memory" | "user"): Promise<MemoryReadResult>;
  add(target: "memory", content: string): Promise<MemoryEditResult>;
  replace(target: "memory", oldText: string, content: string): Promise<MemoryEditResult>;
  remove(target: "memory", oldText: string): Promise<MemoryEditResult>;
}

/** Told when a review changed memory, e.g. to mark the scope's prompt snapshot stale; a throw is logged. */
export type MemoryChangeListener = () => void;
