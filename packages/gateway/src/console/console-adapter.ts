import os from "node:os";
import readline from "node:readline";
import type { AdapterContext, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";
import type { InboundMessage } from "../core/inbound.js";

export interface ConsoleAdapterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A person at a terminal (prompt, typing dots) rather than a script feeding lines. */
  interactive: boolean;
  /** Resolves once every message sent so far is answered and delivered. */
  waitUntilIdle: () => Promise<void>;
  now?: () => number;
}

export const CONSOLE_CHAT_ID = "local";

/**
 * The terminal as a chat platform (`npm run chat`). Piped input sends one message per line and waits for its answer
 * before the next, so answers come out in order and a script gets exactly what it asked for; `finished` resolves
 * after the last answer.
 */
export class ConsoleAdapter implements PlatformAdapter {
  readonly platform = "console";
  readonly textLimit = 1_000_000;
  readonly finished: Promise<void>;
  /** Why intake stopped early (a message could not be handed to the gateway); undefined after normal end of input. */
  failure: Error | undefined;
  private resolveFinished!: () => void;
  private lines: readline.Interface | undefined;
  private counter = 0;
  private readonly user = safeUserName();
  private readonly now: () => number;

  constructor(private readonly options: ConsoleAdapterOptions) {
    this.now = options.now ?? Date.now;
    this.finished = new Promise((resolve) => {
      this.resolveFinished = resolve;
    });
  }

  async start(context: AdapterContext): Promise<void> {
    const lines = readline.createInterface({ input: this.options.input, crlfDelay: Infinity, terminal: false });
    this.lines = lines;
    const sessionStamp = this.now();
    void (async () => {
      this.prompt();
      for await (const line of lines) {
        const text = line.trim();
        if (text.length === 0) {
          this.prompt();
          continue;
        }
        if (this.options.interactive && (text === "/exit" || text === "/quit")) break;
        this.counter += 1;
        await context.receive(this.toInbound(text, `${sessionStamp}-${this.counter}`));
        await this.options.waitUntilIdle();
        this.prompt();
      }
      this.resolveFinished();
    })().catch((error: unknown) => {
      this.failure = error instanceof Error ? error : new Error(String(error));
      this.resolveFinished();
    });
  }

  async stop(): Promise<void> {
    this.lines?.close();
    this.resolveFinished();
  }

  async send(_target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    // Model text may quote fetched pages: terminal control sequences (title, clipboard, hidden text) are removed.
    const text = stripControlCharacters(message.text).replace(/\s+$/, "");
    this.options.output.write(this.options.interactive ? `\rhermes › ${text}\n` : `${text}\n`);
    return { ok: true, messageId: String(this.now()) };
  }

  async sendTyping(): Promise<void> {
    if (this.options.interactive) this.options.output.write("\r…");
  }

  private prompt(): void {
    if (this.options.interactive) this.options.output.write("\nyou › ");
  }

  private toInbound(text: string, id: string): InboundMessage {
    return {
      platform: "console",
      chat: { id: CONSOLE_CHAT_ID, type: "dm" },
      user: { id: this.user, name: this.user },
      messageId: id,
      text,
      attachments: [],
      mentionedBot: true,
      timestamp: this.now(),
    };
  }
}

function stripControlCharacters(text: string): string {
  return text.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

function safeUserName(): string {
  try {
    return os.userInfo().username || "local";
  } catch {
    return "local";
  }
}
