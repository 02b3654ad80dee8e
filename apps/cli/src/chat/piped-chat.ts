import readline from "node:readline";
import type { Logger } from "@hermes/agent";
import type { Conversation } from "./conversation.js";

/**
 * Non-interactive chat: every non-empty line of stdin is one message, every answer goes to stdout (followed by a
 * newline), and the process ends after the last answer. Errors are answered in-band so a script always gets a reply.
 */
export async function runPipedChat(
  conversation: Conversation,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; logger: Logger; stopped: () => boolean },
): Promise<void> {
  const lines = readline.createInterface({ input: io.input, crlfDelay: Infinity, terminal: false });
  for await (const line of lines) {
    if (io.stopped()) break;
    const text = line.trim();
    if (text.length === 0) continue;
    const result = await conversation.send(text);
    if (result.stopReason !== "completed") {
      io.logger.warn("run ended early", { stopReason: result.stopReason, errorClass: result.error?.errorClass });
    }
    io.output.write(`${result.text}\n`);
    if (result.stopReason === "ABORT") break;
  }
  lines.close();
}
