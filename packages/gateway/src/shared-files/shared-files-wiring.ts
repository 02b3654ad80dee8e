import type { Logger } from "@hermes/agent";
import { DEFAULT_MAX_SHARED_FILE_BYTES, type Store } from "@hermes/store";
import type { GatewayConfig } from "../config/gateway-config.js";
import type { InboundMessage } from "../core/inbound.js";
import { sessionKeyFor } from "../core/session-key.js";
import { shareAttachments } from "./share-attachments.js";
import { SharedFilesSync } from "./shared-files-sync.js";

/** How often a gateway looks for hook-state and skill changes between runs (its message:received hooks read the state). */
export const SHARED_FILES_POLL_MS = 5_000;

export interface SharedFiles {
  readonly sync: SharedFilesSync;
  /** Before `gateway.receive`: shares the message's saved attachments (see share-attachments.ts). */
  shareInbound(message: InboundMessage): Promise<InboundMessage>;
  /** Pulls every `intervalMs` until the returned function is called. */
  poll(intervalMs?: number): () => void;
}

/**
 * The shared files of this process when the store is PostgreSQL (HERMES_DATABASE_URL); undefined on SQLite, where
 * HERMES_HOME is the only copy and nothing changes.
 */
/** The largest attachment kept in the database whatever HERMES_MAX_ATTACHMENT_MB says: each is one row, held whole. */
export const MAX_DATABASE_ATTACHMENT_BYTES = 100 * 1024 * 1024;

export function sharedFilesFor(
  config: Pick<GatewayConfig, "databaseUrl" | "home" | "paths" | "sessionScope" | "maxAttachmentBytes">,
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
  };
}
