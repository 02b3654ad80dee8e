import readline from "node:readline/promises";
import type { AgentCallbacks } from "@hermes/agent";
import type { Conversation } from "./conversation.js";

const DIM = "\u001b[2m";
const RESET = "\u001b[0m";

/**
 * Terminal chat for a person: answers stream as they are written, tool activity is shown dimmed, Ctrl+C stops a
 * running answer (and quits at an empty prompt), `/new` starts a fresh conversation, `/exit` quits.
 */
export async function runInteractiveChat(
  conversation: Conversation,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; banner: string },
): Promise<void> {
  const rl = readline.createInterface({ input: io.input, output: io.output, terminal: true });
  const write = (text: string): void => {
    io.output.write(text);
  };
  rl.on("SIGINT", () => {
    if (conversation.interrupt()) write(`\n${DIM}(stopping…)${RESET}\n`);
    else rl.close();
  });
  write(`${io.banner}\n${DIM}Type a message. /new starts over, /exit quits, Ctrl+C stops an answer.${RESET}\n\n`);

  const callbacks: AgentCallbacks = {
    onTextDelta: (delta) => write(delta),
    onToolStart: (event) => {
      write(`${DIM}\n· ${event.toolName} ${summarizeArgs(event.arguments)}${RESET}\n`);
    },
    onStatus: (event) => write(`${DIM}\n· ${event.message}${RESET}\n`),
  };

  for (;;) {
    let line: string;
    try {
      line = await rl.question("you › ");
    } catch {
      break; // closed by Ctrl+C or Ctrl+D
    }
    const text = line.trim();
    if (text.length === 0) continue;
    if (text === "/exit" || text === "/quit") break;
    if (text === "/new" || text === "/reset") {
      conversation.reset();
      write(`${DIM}Started a new conversation.${RESET}\n`);
      continue;
    }
    write("hermes › ");
    let streamed = false;
    const result = await conversation.send(text, {
      ...callbacks,
      onTextDelta: (delta) => {
        streamed = true;
        callbacks.onTextDelta?.(delta, { step: 0 });
      },
      onStep: (event) => {
        // Text that preceded tool calls was already shown; the final answer is streamed after it.
        if (event.toolCalls.length > 0 && streamed) write("\n");
      },
    });
    if (!streamed || result.stopReason !== "completed") write(`${result.stopReason === "completed" ? "" : "\n"}${result.text}`);
    write("\n\n");
  }
  rl.close();
}

function summarizeArgs(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
