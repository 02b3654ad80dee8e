export {
  MemoryProvider,
  isMemoryProvider,
  isMemoryProviderClass,
  type MemoryProviderContext,
  type MemoryWrite,
} from "./memory-provider.js";
export { MemoryManager, type MemoryManagerOptions } from "./memory-manager.js";
export { BuiltinMemoryProvider, BUILTIN_MEMORY_PROVIDER_NAME, type BuiltinMemoryProviderOptions } from "./builtin-provider.js";
export {
  MemoryStore,
  DEFAULT_MEMORY_LIMITS,
  MEMORY_FILE_NAMES,
  memoryDirOf,
  type MemoryEditResult,
  type MemoryErrorCode,
  type MemoryFileState,
  type MemoryReadResult,
  type MemoryStoreOptions,
  type MemoryTarget,
} from "./memory-store.js";
export { memoryTool, MEMORY_TOOL_NAME, MEMORY_TOOL_GUIDANCE, type MemoryToolArgs, type MemoryToolOptions } from "./memory-tool.js";
export { fenceMemoryContext, sanitizeContext, MEMORY_FENCE_OPEN, MEMORY_FENCE_CLOSE, MEMORY_FENCE_NOTE } from "./context-fence.js";
export { StreamingContextScrubber } from "./stream-scrubber.js";
export { detectSecret, type SecretKind } from "./secret-guard.js";
export {
  discoverMemoryProviders,
  userMemoryProvidersDir,
  type DiscoverMemoryProvidersOptions,
  type DiscoveredMemoryProviders,
  type PluginImporter,
  type SkippedPlugin,
} from "./plugin-discovery.js";
export { withFileLock, type FileLockOptions, type LockedOutcome } from "./file-lock.js";
export { memoryDocumentKey, type MemoryDocument, type MemoryDocuments, type MemoryDocumentWrite, type MemoryStorage } from "./memory-documents.js";
export { fileMemoryDocuments, fileMemoryStorage } from "./file-memory-documents.js";
export { scrubMemoryFences, scrubbedDeltas, type AgentMemory } from "./agent-memory.js";
export {
  chatMemoryDir,
  encodePathPart,
  memoryScopeOf,
  userMemoryDir,
  userMemoryScope,
  type MemoryScope,
  type MemoryScopeMode,
  type MemoryScopeSubject,
} from "./memory-scope.js";
export { ScopedMemories, forgetMemoryFiles, readMemoryScope, type ScopedMemoriesOptions, type MemoryScopeContents } from "./scoped-memories.js";
