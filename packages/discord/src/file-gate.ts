import type { Logger } from "@hermes/agent";
import type { AdapterContext, InboundMessage } from "@hermes/gateway";

/**
 * The gateway's say on fetching a message's files (AdapterContext.mayFetchFiles): a stranger's are only listed.
 * Discord does not deliver an event again, so a gate that cannot answer (the database is away) lists the files too,
 * and the message itself still goes to the gateway.
 */
export async function mayFetchFiles(message: InboundMessage, context: AdapterContext, logger: Logger): Promise<boolean> {
  if (!context.mayFetchFiles || message.attachments.length === 0) return true;
  try {
    return await context.mayFetchFiles(message);
  } catch (error) {
    logger.warn("could not tell whether a Discord message's files may be fetched; they are listed only", {
      messageId: message.messageId,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}
