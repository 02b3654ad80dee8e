import type { AdapterContext, InboundMessage, OutboundMessage, OutboundTarget, PlatformAdapter, SendResult } from "@hermes/gateway";

export interface SentMessage {
  target: OutboundTarget;
  message: OutboundMessage;
}

export interface EditedMessage extends SentMessage {
  messageId: string;
}

/** A platform that records what the gateway sends and lets a test inject messages as if users wrote them. */
export class RecordingAdapter implements PlatformAdapter {
  readonly sent: SentMessage[] = [];
  readonly typing: OutboundTarget[] = [];
  readonly edits: EditedMessage[] = [];
  private context: AdapterContext | undefined;
  private counter = 0;

  constructor(
    readonly platform = "telegram",
    readonly textLimit = 4096,
  ) {}

  async start(context: AdapterContext): Promise<void> {
    this.context = context;
  }

  async stop(): Promise<void> {
    this.context = undefined;
  }

  async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    this.sent.push({ target, message });
    return { ok: true, messageId: `out-${this.sent.length}` };
  }

  async edit(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult> {
    this.edits.push({ target, messageId, message });
    return { ok: true, messageId };
  }

  /** Each sent message as it reads now (after its edits), in the order they were sent. */
  visible(chatId?: string): string[] {
    return this.sent
      .map((sent, index) => ({ sent, id: `out-${index + 1}` }))
      .filter(({ sent }) => chatId === undefined || sent.target.chatId === chatId)
      .map(({ sent, id }) => this.edits.filter((edit) => edit.messageId === id).at(-1)?.message.text ?? sent.message.text);
  }

  async sendTyping(target: OutboundTarget): Promise<void> {
    this.typing.push(target);
  }

  texts(chatId?: string): string[] {
    return this.sent.filter((s) => chatId === undefined || s.target.chatId === chatId).map((s) => s.message.text);
  }

  /** Delivers a message from a user; resolves once the gateway has persisted and routed it. */
  async userSays(text: string, overrides: Partial<InboundMessage> = {}): Promise<InboundMessage> {
    if (!this.context) throw new Error("adapter not started");
    this.counter += 1;
    const message: InboundMessage = {
      platform: this.platform,
      chat: { id: "100", type: "dm" },
      user: { id: "7", name: "Ada" },
      messageId: `in-${Date.now()}-${this.counter}`,
      text,
      attachments: [],
      mentionedBot: false,
      timestamp: Date.now(),
      ...overrides,
    };
    await this.context.receive(message);
    return message;
  }
}
