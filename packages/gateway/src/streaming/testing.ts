import type { OutboundMessage, OutboundTarget, SendResult } from "../core/adapter.js";
import { FakeAdapter, type FakeAdapterOptions } from "../outbound/testing.js";

export interface EditCall {
  target: OutboundTarget;
  messageId: string;
  message: OutboundMessage;
}

export type EditResponder = (call: EditCall) => SendResult | Promise<SendResult>;

/** The in-memory platform of the outbound tests, able to edit what it sent: records every edit and answers as scripted. */
export class EditingFakeAdapter extends FakeAdapter {
  /** Every edit attempt, in call order. */
  readonly edits: EditCall[] = [];
  private readonly queuedEdits: EditResponder[] = [];
  /** What each message shows now, by id: the text it was sent with, then its last successful edit. */
  readonly messages = new Map<string, string>();

  constructor(options: FakeAdapterOptions = {}) {
    super(options);
  }

  /** Answers for the next edits, in order; later edits succeed. */
  respondNextEdit(...responders: (SendResult | EditResponder)[]): void {
    for (const responder of responders) this.queuedEdits.push(typeof responder === "function" ? responder : () => responder);
  }

  override async send(target: OutboundTarget, message: OutboundMessage): Promise<SendResult> {
    const result = await super.send(target, message);
    if (result.ok && result.messageId !== undefined) this.messages.set(result.messageId, message.text);
    return result;
  }

  async edit(target: OutboundTarget, messageId: string, message: OutboundMessage): Promise<SendResult> {
    const call = { target, messageId, message };
    this.edits.push(call);
    const result = await (this.queuedEdits.shift() ?? (() => ({ ok: true }) as const))(call);
    if (result.ok) this.messages.set(messageId, message.text);
    return result;
  }
}
