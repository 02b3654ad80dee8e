import { createJsonLogger, type Logger } from "@hermes/agent";
import type { AdapterContext, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "../core/adapter.js";

export interface SendCall {
  target: OutboundTarget;
  message: OutboundMessage;
}

export type SendResponder = (call: SendCall) => SendResult | Promise<SendResult>;

export interface FakeAdapterOptions {
  platform?: string;
  textLimit?: number;
  formatMarkdown?: (markdown: string) => string;
  /** Answers sends that `respondNext` has nothing queued for (default: success). */
  respond?: SendResponder;
  /** Makes `sendTyping` available; it fails while this returns (or resolves to) an error message. */
  typing?: (target: OutboundTarget) => string | undefined | Promise<string | undefined>;
}

/** An in-memory platform for tests: records every call and answers sends as scripted. */
export class FakeAdapter implements PlatformAdapter {
  readonly platform: string;
  readonly textLimit: number;
  readonly formatMarkdown?: (markdown: string) => string;
  readonly sendTyping?: (target: OutboundTarget) => Promise<void>;
  /** Every send attempt, successful or not, in call order. */
  readonly sends: SendCall[] = [];
  readonly typingCalls: OutboundTarget[] = [];
  private readonly queued: SendResponder[] = [];
  private readonly outcomes: boolean[] = [];
  private nextMessageId = 1;

  constructor(private readonly options: FakeAdapterOptions = {}) {
    this.platform = options.platform ?? "fake";
    this.textLimit = options.textLimit ?? 4096;
    if (options.formatMarkdown) this.formatMarkdown = options.formatMarkdown;
    const typing = options.typing;
    if (typing) {
      this.sendTyping = async (target) => {
        this.typingCalls.push(target);
        const failure = await typing(target);
        if (failure !== undefined) throw new Error(failure);
      };
    }
  }

  /** Answers for the next sends, in order; later sends fall back to the default responder. */
  respondNext(...responders: (SendResult | SendResponder)[]): void {
    for (const responder of responders) this.queued.push(typeof responder === "function" ? responder : () => responder);
  }

  /** Texts of the sends that succeeded. */
  get delivered(): string[] {
    return this.sends.filter((_, index) => this.outcomes[index] === true).map((call) => call.message.text);
  }

  async start(_context: AdapterContext): Promise<void> {}

  async stop(): Promise<void> {}

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const call = { target, message };
    const index = this.sends.push(call) - 1;
    const responder = this.queued.shift() ?? this.options.respond ?? (() => ({ ok: true, messageId: String(this.nextMessageId++) }));
    const result = await responder(call);
    this.outcomes[index] = result.ok;
    return result;
  }
}

export interface LogEntry {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** A real JSON logger whose lines are kept, parsed, for assertions. */
export function capturingLogger(): { logger: Logger; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const logger = createJsonLogger({ level: "debug", write: (line) => entries.push(JSON.parse(line) as LogEntry) });
  return { logger, entries };
}

/** A promise to hold a fake send or typing call open until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
