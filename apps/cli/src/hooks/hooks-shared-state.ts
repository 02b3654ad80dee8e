import type { Logger } from "@hermes/agent";
import { HOOK_STATE_PATH, SharedFilesSync } from "@hermes/gateway";
import type { SharedFileRepository } from "@hermes/store";
import { EXIT_FAILED, type TextSink } from "./hooks-io.js";

export interface SharedHookStateIo {
  files: SharedFileRepository;
  home: string;
  stderr: TextSink;
  logger: Logger;
}

/**
 * With HERMES_DATABASE_URL the database holds the hook enable state every gateway and worker follows: a `hermes hooks`
 * command first brings it into this HERMES_HOME (so list shows, and enable/disable changes, what is in force), and an
 * enable or disable that succeeded writes it back, from any machine.
 */
export async function withSharedHookState(io: SharedHookStateIo, changesState: boolean, run: () => Promise<number>): Promise<number> {
  const sync = new SharedFilesSync({ files: io.files, home: io.home, logger: io.logger });
  const pulled = await sync.pull();
  if (!pulled.ok) {
    io.stderr.write(`The hook state could not be read from the database: ${pulled.error}\n`);
    return EXIT_FAILED;
  }
  const code = await run();
  if (code !== 0 || !changesState) return code;
  try {
    await sync.pushFile(HOOK_STATE_PATH);
  } catch (error) {
    io.stderr.write(`The change is in ${io.home} but not in the database, so other machines do not follow it: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT_FAILED;
  }
  return code;
}
