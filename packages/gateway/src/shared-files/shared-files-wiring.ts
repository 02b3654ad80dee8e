import path from "node:path";
import { SESSIONS_FOLDER_NAME, type Logger } from "@hermes/agent";
import { DEFAULT_MAX_SHARED_FILE_BYTES, type Store } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { sessionKeyFor } from "../core/session-key.js";
import { pruneSessionCopies } from "./session-copies.js";
import { shareAttachments } from "./share-attachments.js";
import { SharedFilesSync } from "./shared-files-sync.js";

/** How often a gateway looks for hook-state and skill changes between runs (its message:received hooks read the state). */
export const SHARED_FILES_POLL_MS = 5_000;
const DAY_MS = 86_400_000;
/** The first pruning of unused copies waits this long, clear of start-up work (as the database's retention does). */
const FIRST_PRUNE_DELAY_MS = 60_000;

export interface SharedFiles {
  readonly sync: SharedFilesSync;
  /** Before `gateway.receive`: shares the message's saved attachments (see share-attachments.ts). */
  shareInbound(message: InboundMessage): Promise<InboundMessage>;
  /** Pulls every `intervalMs` until the returned function is called. */
  poll(intervalMs?: number): () => void;
  /**
   * Removes this home's copies of session files unused for HERMES_RETENTION_DAYS (session-copies.ts), a minute after
   * the call and then daily, until the returned function is called.
   */
  pruneCopies(timing?: { firstDelayMs?: number; intervalMs?: number }): () => void;
}

/**
 * The shared files of this process when the store is PostgreSQL (HERMES_DATABASE_URL); undefined on SQLite, where
 * HERMES_HOME is the only copy and nothing changes.
 */
/** The largest attachment kept in the database whatever HERMES_MAX_ATTACHMENT_MB says: each is one row, held whole. */
export const MAX_DATABASE_ATTACHMENT_BYTES = 100 * 1024 * 1024;

export function sharedFilesFor(
  config: Pick<GatewayConfig, "databaseUrl" | "home" | "paths" | "sessionScope" | "maxAttachmentBytes" | "retention">,
  deps: { store: Pick<Store, "sharedFiles">; logger: Logger },
): SharedFiles | undefined {
  if (config.databaseUrl === undefined) return undefined;
  const logger = deps.logger.child({ component: "shared-files" });
  const sync = new SharedFilesSync({ files: deps.store.sharedFiles, home: config.home, logger });
  // The adapters refuse what is larger already (same setting); this guards the database against any that does not,
  // and keeps a row well within what one statement moves before its timeout (PostgreSQL's bytea ends at 1 GB).
  const maxBytes = Math.min(config.maxAttachmentBytes ?? DEFAULT_MAX_SHARED_FILE_BYTES, MAX_DATABASE_ATTACHMENT_BYTES);
  return {
    sync,
    shareInbound: (message) =>
      shareAttachments(message, sessionKeyFor(message, config.sessionScope), {
        files: deps.store.sharedFiles,
        homeFiles: sync.homeFiles,
        workspace: config.paths.workspace,
        maxBytes,
        logger,
      }),
    poll: (intervalMs = SHARED_FILES_POLL_MS) => {
      const timer = setInterval(() => void sync.pull(), intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
    pruneCopies: ({ firstDelayMs = FIRST_PRUNE_DELAY_MS, intervalMs = DAY_MS } = {}) => {
      // The attachments folder counts only inside HERMES_HOME: a workspace elsewhere is not shared, so it is the only copy.
      const attachments = sync.homeFiles.sharedPathOf(path.join(config.paths.workspace, "attachments"));
      const copies = { homeFiles: sync.homeFiles, folders: [SESSIONS_FOLDER_NAME, ...(attachments ? [attachments] : [])], logger };
      const controller = new AbortController();
      const prune = (): void =>
        void pruneSessionCopies(copies, Date.now() - config.retention.days * DAY_MS, controller.signal).catch((error: unknown) =>
          logger.warn("shared files: could not remove unused copies of session files; trying again tomorrow", { error }),
        );
      const first = setTimeout(prune, firstDelayMs);
      const daily = setInterval(prune, intervalMs);
      first.unref();
      daily.unref();
      return () => {
        controller.abort();
        clearTimeout(first);
        clearInterval(daily);
      };
    },
  };
}
