import { shareHomeFiles } from "@hermes/gateway";
import { tryOpenStore } from "@hermes/store";

export type HomeShareOutcome = { ok: true; files: number; bytes: number; unchanged: number } | { ok: false; message: string };

/**
 * The part of an install that lives as files beside state.db and follows the deployment on PostgreSQL: agent-made
 * skills and the hook choices, put into the database's shared files once the tables are in.
 */
export async function shareHomeInto(options: { databaseUrl: string; home: string; stateDb: string }): Promise<HomeShareOutcome> {
  const opened = await tryOpenStore({ file: options.stateDb, databaseUrl: options.databaseUrl, poolSize: 1 });
  if (!opened.ok) return { ok: false, message: opened.error.message };
  try {
    const shared = await shareHomeFiles(opened.store.sharedFiles, options.home);
    return shared.ok ? shared : { ok: false, message: shared.error };
  } finally {
    await opened.store.close();
  }
}
