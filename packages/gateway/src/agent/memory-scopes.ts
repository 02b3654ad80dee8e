import { stat } from "node:fs/promises";
import path from "node:path";
import {
  MEMORY_FILE_NAMES,
  MemoryManager,
  ScopedMemories,
  discoverMemoryProviders,
  fileMemoryStorage,
  memoryScopeOf,
  readMemoryScope,
  userMemoryProvidersDir,
  type AnyToolDefinition,
  type Logger,
  type MemoryScope,
  type MemoryScopeContents,
  type MemoryScopeMode,
  type MemoryStorage,
} from "@hermes/agent";
import type { Store } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { isSharedSession } from "../core/session-key.js";

/** A run's memory: its scope, that scope's manager and the memory tools the run may use. */
export interface RunMemory {
  scope: MemoryScope;
  manager: MemoryManager;
  tools: readonly AnyToolDefinition[];
}

export interface GatewayMemory {
  scopeOf(message: InboundMessage): MemoryScope;
  /** The message's scope for a run in `sessionId` (its snapshot re-taken when the scope first meets that session). */
  forMessage(message: InboundMessage, sessionId: string): Promise<RunMemory>;
  managerFor(scope: MemoryScope): Promise<MemoryManager>;
  /** The scope's MEMORY.md and USER.md as stored now (for /memory), wherever memory is kept. */
  read(scope: MemoryScope): Promise<MemoryScopeContents>;
  /** The managers of the scopes whose runs took part in the conversation (told before `/compress` summarises it). */
  managersOf(sessionId: string): Promise<MemoryManager[]>;
  /** The conversation ended (`/new`, `/reset`): its scopes' providers, and those of `endedBy`, get `onSessionEnd`. */
  endSession(sessionId: string, endedBy?: MemoryScope): Promise<void>;
  /**
   * Erases the scope's own files and the external provider's entries for it; given the person and the group chats
   * they were seen in, also the provider entries of their scope in each of those chats (set up just for that).
   */
  forget(scope: MemoryScope, person?: PersonInChats): Promise<void>;
  shutdown(): Promise<void>;
}

/** A person and the group chats the store saw them in. */
export interface PersonInChats {
  platform: string;
  userId: string;
  groupChatIds: readonly string[];
}

type MemoryConfig = Pick<GatewayConfig, "home" | "paths" | "memoryScope" | "sessionScope">;

/**
 * Where the scopes' MEMORY.md and USER.md are kept: with HERMES_DATABASE_URL the database's memory documents (so every
 * worker and gateway, each with a home of its own, shares them), otherwise the files under $HERMES_HOME/memory.
 */
export function memoryStorageOf(config: Pick<GatewayConfig, "databaseUrl" | "paths">, store: Pick<Store, "memoryDocuments">): MemoryStorage {
  return config.databaseUrl === undefined ? fileMemoryStorage(config.paths.memory) : { root: config.paths.memory, documents: store.memoryDocuments };
}

/** A scope's manager: its built-in files in `storage` and the external provider (if any) made with the scope id. */
export async function createScopeManager(scope: MemoryScope, options: { home: string; storage: MemoryStorage; logger: Logger }): Promise<MemoryManager> {
  const manager = new MemoryManager({ memoryDir: scope.memoryDir, userDir: scope.userDir, scopeId: scope.id, logger: options.logger, builtinOptions: { storage: options.storage } });
  // Each scope gets its own provider instance, constructed with the scope id, so plugins can keep scopes apart.
  const plugins = await discoverMemoryProviders({ dirs: [userMemoryProvidersDir(options.home)], context: manager.context, logger: options.logger });
  for (const provider of plugins.providers) manager.addProvider(provider);
  await manager.initialize();
  return manager;
}

/**
 * The memory managers of all scopes (HERMES_MEMORY_SCOPE), each with its own built-in files and external provider;
 * `storage` (memoryStorageOf) says where the files are, default $HERMES_HOME/memory.
 */
export function createGatewayMemory(config: MemoryConfig, options: { logger: Logger; toolsEnabled: boolean; storage?: MemoryStorage }): GatewayMemory {
  const memoryRoot = config.paths.memory;
  const storage = options.storage ?? fileMemoryStorage(memoryRoot);
  const scopes = new ScopedMemories({
    logger: options.logger,
    storage,
    create: (scope) => createScopeManager(scope, { home: config.home, storage, logger: options.logger.child({ memoryScope: scope.id }) }),
  });
  const scopeOf = (message: InboundMessage): MemoryScope =>
    memoryScopeOf(config.memoryScope, memoryRoot, {
      platform: message.platform,
      userId: message.user.id,
      chatId: message.chat.id,
      sharedSession: isSharedSession(message, config.sessionScope),
      directChat: message.chat.type === "dm",
    });
  return {
    scopeOf,
    forMessage: async (message, sessionId) => {
      const scope = scopeOf(message);
      const manager = await scopes.managerFor(scope, sessionId);
      return { scope, manager, tools: options.toolsEnabled ? manager.tools() : [] };
    },
    managerFor: (scope) => scopes.managerFor(scope),
    read: (scope) => readMemoryScope(scope, storage),
    managersOf: (sessionId) => scopes.managersOf(sessionId),
    endSession: (sessionId, endedBy) => scopes.endSession(sessionId, endedBy),
    forget: async (scope, person) => {
      await scopes.forget(scope, person ? sharedChatScopesOf(config.memoryScope, memoryRoot, person) : []);
    },
    shutdown: () => scopes.shutdown(),
  };
}

/** The person's scope in each of the chats as a shared session there has it (only `user` mode has such scopes). */
export function sharedChatScopesOf(mode: MemoryScopeMode, memoryRoot: string, person: PersonInChats): MemoryScope[] {
  if (mode !== "user") return [];
  return person.groupChatIds.map((chatId) =>
    memoryScopeOf(mode, memoryRoot, { platform: person.platform, userId: person.userId, chatId, sharedSession: true, directChat: false }),
  );
}

/** The start-up line saying whether the old global MEMORY.md/USER.md are used. */
export async function logMemoryScope(config: MemoryConfig & Pick<GatewayConfig, "databaseUrl">, logger: Logger): Promise<void> {
  if (config.databaseUrl !== undefined) {
    logger.info(`memory scope ${config.memoryScope}: MEMORY.md and USER.md are kept in the database (memory_documents), not in ${config.paths.memory}`);
    return;
  }
  const globals = Object.values(MEMORY_FILE_NAMES).map((name) => path.join(config.paths.memory, name));
  const present = (await Promise.all(globals.map((file) => stat(file).then(() => file, () => undefined)))).filter((file) => file !== undefined);
  if (config.memoryScope === "shared") {
    logger.info("memory scope shared: everyone reads and writes the same MEMORY.md and USER.md", { files: globals });
  } else if (present.length > 0) {
    logger.info(`memory scope ${config.memoryScope}: the global memory files are left alone and not read (only HERMES_MEMORY_SCOPE=shared reads them)`, {
      files: present,
    });
  } else {
    logger.info(`memory scope ${config.memoryScope}: each ${config.memoryScope === "user" ? "person" : "chat"} has their own MEMORY.md and USER.md`);
  }
}
