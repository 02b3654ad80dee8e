import {
  ScopedMemories,
  readMemoryScope,
  userMemoryScope,
  type Logger,
  type MemoryFileState,
  type MemoryScope,
  type MemoryScopeMode,
  type MemoryStorage,
} from "@hermes/agent";
import { createScopeManager, sharedChatScopesOf } from "@hermes/gateway";
import { booleanOption, EXIT_OK, EXIT_USAGE, type ParsedCommand } from "../cli/command-spec.js";
import { formatGroupHelp } from "../cli/usage.js";
import { MEMORY_GROUP } from "./memory-spec.js";

interface MemoryIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  home: string;
  memoryDir: string;
  /** Where the entries are kept (the files below memoryDir, or the database with HERMES_DATABASE_URL). */
  storage: MemoryStorage;
  logger: Logger;
  /** HERMES_MEMORY_SCOPE: in `user` mode a person also has a scope per shared chat, whose provider entries go too. */
  memoryScope: MemoryScopeMode;
  /** The group chats the state database saw the person in (only `forget` asks). */
  groupChatsOf(platform: string, userId: string): Promise<string[]>;
}

/** Runs a `hermes memory` command line that already fits `MEMORY_GROUP`. */
export async function executeMemoryCommand(command: ParsedCommand, io: MemoryIo): Promise<number> {
  const target = command.positionals[0] ?? "";
  const at = target.indexOf(":");
  if (at <= 0 || at === target.length - 1) {
    io.stderr.write(`The person must be <platform:userId>, e.g. telegram:42.\n\n${formatGroupHelp(MEMORY_GROUP)}\n`);
    return EXIT_USAGE;
  }
  const platform = target.slice(0, at);
  const userId = target.slice(at + 1);
  const scope = userMemoryScope(io.memoryDir, platform, userId);
  if (command.spec.name === "forget") return forget(scope, { platform, userId }, target, io);
  return show(scope, target, io, booleanOption(command.values, "json"));
}

async function show(scope: MemoryScope, who: string, io: MemoryIo, json: boolean): Promise<number> {
  const contents = await readMemoryScope(scope, io.storage);
  if (json) {
    const entries = (state: MemoryFileState | undefined) => state?.entries ?? [];
    io.stdout.write(`${JSON.stringify({ user: who, scope: scope.id, folder: scope.memoryDir, memory: entries(contents.memory), userProfile: entries(contents.user) }, null, 2)}\n`);
    return EXIT_OK;
  }
  const sections = [contents.memory, contents.user].filter((state): state is MemoryFileState => state !== undefined && state.entries.length > 0);
  if (sections.length === 0) {
    io.stdout.write(`Nothing saved for ${printable(who)}.\n`);
    return EXIT_OK;
  }
  for (const state of sections) {
    io.stdout.write(`${state.fileName} (${state.entries.length} entries)\n`);
    for (const entry of state.entries) io.stdout.write(`  § ${printable(entry)}\n`);
  }
  return EXIT_OK;
}

async function forget(scope: MemoryScope, person: { platform: string; userId: string }, who: string, io: MemoryIo): Promise<number> {
  // The external provider (if any) forgets the person's own scope and their scope in each shared chat, as
  // /forget confirm does in their chat; each is set up just for that and shut down again.
  const memories = new ScopedMemories({
    logger: io.logger,
    storage: io.storage,
    create: (each) => createScopeManager(each, { home: io.home, storage: io.storage, logger: io.logger }),
  });
  let erased: boolean;
  try {
    const groupChatIds = await io.groupChatsOf(person.platform, person.userId);
    erased = await memories.forget(scope, sharedChatScopesOf(io.memoryScope, io.memoryDir, { ...person, groupChatIds }));
  } finally {
    await memories.shutdown();
  }
  io.stdout.write(erased ? `Erased the memory of ${printable(who)}.\n` : `Nothing was saved for ${printable(who)}; nothing to erase.\n`);
  return EXIT_OK;
}

// Entries were written by the model from chat text: terminal control characters are not passed to the terminal.
function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "?");
}
