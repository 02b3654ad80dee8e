import type { AssistantMessage } from "@mariozechner/pi-ai";
import { repairArguments } from "../history/json-args.js";
import type { Logger } from "../observability/logger.js";

/** Double-encoded or trailing-comma arguments have one reading; fix them before validation sees them. */
export function repairToolCallArguments(message: AssistantMessage, logger: Logger): AssistantMessage {
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    const repaired = repairArguments(block.arguments as unknown);
    if (repaired.ok && repaired.repaired) {
      changed = true;
      logger.info("repaired tool-call arguments", { tool: block.name, toolCallId: block.id });
      return { ...block, arguments: repaired.value };
    }
    return block;
  });
  return changed ? { ...message, content } : message;
}
